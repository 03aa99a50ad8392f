import type { SnapshotWrite } from '../db/run-snapshots.js';
import { childLogger } from './child-logger.js';
import type { RunState, AgentInternals, Snapshot, TopCall } from './run-model.js';
import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { runTelemetry } from './telemetry.js';

export function snapshotWrite(run: RunState): SnapshotWrite {
  return {
    run_id: run.runId,
    root_run_id: run.rootRunId,
    parent_run_id: run.parentRunId,
    agent_id: run.agent.id,
    thread_id: run.threadId,
    resource_id: run.resourceId,
    snapshot: toSnapshot(run),
  };
}

export function toSnapshot(run: RunState): Snapshot {
  // In the order the snapshot has always been written; absent parts are left out, not null.
  const snapshot: Snapshot = { v: 1, path: run.path } as Snapshot;
  if (run.parentToolCallId) snapshot.parentToolCallId = run.parentToolCallId;
  if (run.top) snapshot.top = run.top;
  if (run.outputFrom !== undefined) snapshot.outputFrom = run.outputFrom;
  if (run.usage) snapshot.usage = run.usage;
  snapshot.messages = run.messages;
  if (run.options.memory) snapshot.history = { upTo: run.historyUpTo, count: run.history.length };
  snapshot.results = run.results;
  snapshot.step = run.step;
  snapshot.options = run.options;
  return snapshot;
}

export function subAgentToolName(key: string): string {
  return `agent-${key}`;
}

/**
 * How a call of `run` is announced, as Mastra's supervisor stream shows it: a sub-agent's call
 * under the top-level delegation's id (an approval with the inner tool's name and arguments, a
 * suspension as the delegation itself), with the inner call's own id (and, for a suspension, name
 * and arguments) beside it.
 */
export function announcedAs(top: TopCall | undefined, call: { toolCallId: string; toolName: string; args: unknown }, kind: 'approval' | 'suspension') {
  if (!top) return { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args };
  if (kind === 'approval') return { toolCallId: top.toolCallId, toolName: call.toolName, args: call.args, innerToolCallId: call.toolCallId };
  return { toolCallId: top.toolCallId, toolName: top.toolName, args: top.args, innerToolCallId: call.toolCallId, innerToolName: call.toolName, innerArgs: call.args };
}

/** A sub-agent run created for one delegating tool call of its parent. */
export function childRun(parent: RunState, agent: AgentInternals, call: { toolCallId: string; toolName: string }, args: { prompt: string }): RunState {
  const { toolCallId } = call;
  const prompt = args.prompt;
  const runId = randomUUID();
  const own = agent.defaultOptions.requireToolApproval;
  const telemetry = parent.live?.telemetry ? parent.telemetry : (runTelemetry(agent.defaultOptions.telemetry, undefined) ?? parent.telemetry);
  return {
    runId,
    rootRunId: parent.rootRunId,
    parentRunId: parent.runId,
    parentToolCallId: toolCallId,
    top: parent.top ?? { toolCallId, toolName: call.toolName, args },
    agent,
    path: [...parent.path, agent.id],
    threadId: parent.threadId,
    resourceId: parent.resourceId,
    history: [],
    historyUpTo: null,
    messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
    results: {},
    step: 0,
    options: {
      maxSteps: agent.defaultOptions.maxSteps ?? 10,
      ...(parent.options.requester ? { requester: parent.options.requester } : {}),
      ...(parent.options.caller ? { caller: parent.options.caller } : {}),
      // The request's rule holds at every depth; the sub-agent's own default is re-derived from code.
      ...(parent.options.requireToolApproval !== undefined ? { requireToolApproval: parent.options.requireToolApproval } : {}),
      ...(parent.options.requestContext ? { requestContext: parent.options.requestContext } : {}),
    },
    // A supervisor's rules reach the sub-agent's calls; the sub-agent's own default is added to them.
    approvalRules: [...parent.approvalRules, ...(own === undefined ? [] : [own])],
    requestContext: parent.requestContext,
    hadSnapshot: false,
    audit: [],
    deps: parent.deps,
    log: childLogger(parent.log, { subRunId: runId, agentPath: [...parent.path, agent.id].join('/') }),
    ...(parent.lease ? { lease: parent.lease } : {}),
    // The caller's abort and spans reach the whole tree; call settings are each agent's own.
    ...(parent.live?.abortSignal ? { live: { abortSignal: parent.live.abortSignal } } : {}),
    ...(agent.callSettings ? { settings: agent.callSettings } : {}),
    ...(telemetry ? { telemetry } : {}),
  };
}

/**
 * What a supervisor's model passes when it delegates to a sub-agent (the tool `agent-<key>`):
 * the prompt. Other keys (Mastra's delegation tool also offers threadId, resourceId,
 * instructions, maxSteps) are kept with the call's arguments but do not change the sub-agent's run.
 */
export const delegationInput = z.looseObject({ prompt: z.string().min(1) });

export function findAgent(root: AgentInternals, path: string[]): AgentInternals | undefined {
  return agentsAlong(root, path)?.at(-1);
}

/** The agents a delegation path names, from `root` down; undefined when the code no longer has one of them. */
export function agentsAlong(root: AgentInternals, path: string[]): AgentInternals[] | undefined {
  if (path[0] !== root.id) return undefined;
  const lineage = [root];
  for (const id of path.slice(1)) {
    const next = Object.values(lineage.at(-1)!.subAgents).find((a) => a.id === id);
    if (!next) return undefined;
    lineage.push(next);
  }
  return lineage;
}

/** Appends the tool message for the last step, in the order the model made the calls. */
export function pushToolResults(run: RunState): void {
  const last = run.messages[run.messages.length - 1];
  if (!last || last.role !== 'assistant') return;
  const content: Array<{
    type: 'tool-result';
    toolCallId: string;
    toolName: string;
    output: LanguageModelV3ToolResultOutput;
  }> = [];
  for (const part of last.content) {
    if (part.type !== 'tool-call') continue;
    const output = run.results[part.toolCallId] ?? { type: 'error-text' as const, value: 'No result' };
    content.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output });
  }
  run.messages.push({ role: 'tool', content });
  run.results = {};
}

export function lastToolCalls(run: RunState): Array<{ toolCallId: string; toolName: string; input: unknown }> {
  const last = run.messages[run.messages.length - 1];
  if (!last || last.role !== 'assistant') return [];
  return last.content.flatMap((p) =>
    p.type === 'tool-call' ? [{ toolCallId: p.toolCallId, toolName: p.toolName, input: p.input }] : [],
  );
}
