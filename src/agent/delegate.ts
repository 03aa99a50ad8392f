import { randomUUID } from 'node:crypto';
import type { AgentInternals } from './agent-internals.js';
import { quietEmitter, type Emitter } from './emitter.js';
import { runSteps } from './loop.js';
import type { CallOutcome } from './plan-tool-call.js';
import type { RunOutcome } from './plan.js';
import { ClaimLostError } from './errors.js';
import { errorMessage } from '../error-message.js';
import type { RunState } from './run-state.js';

/** What the caller's model is told when the sub-agent behind `toolName` fails, as a failed tool's caller is. */
export function delegationFailure(toolName: string, message: string): string {
  return `Delegation to ${toolName} failed: ${message}`;
}

export function subAgentToolName(key: string): string {
  return `agent-${key}`;
}

/** A sub-agent run created for one delegating tool call of its parent. */
export function childRun(parent: RunState, agent: AgentInternals, toolCallId: string, prompt: string): RunState {
  const runId = randomUUID();
  const own = agent.defaultOptions.requireToolApproval;
  return {
    runId,
    rootRunId: parent.rootRunId,
    parentRunId: parent.runId,
    parentToolCallId: toolCallId,
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
    log: parent.log.child({ subRunId: runId, agentPath: [...parent.path, agent.id].join('/') }),
    ...(parent.claim ? { claim: parent.claim } : {}),
  };
}

/**
 * Runs a sub-agent inside its parent's step. If the sub-agent pauses, its plan
 * (snapshot and waiting calls, with the inner tool and the delegation path) is
 * folded into the parent's, and the parent waits on it with a `delegation` row.
 */
export async function runDelegation(
  run: RunState,
  agent: AgentInternals,
  call: { toolCallId: string; toolName: string },
  args: { prompt: string },
  out: Emitter,
): Promise<CallOutcome> {
  const child = childRun(run, agent, call.toolCallId, args.prompt);
  let outcome: RunOutcome;
  try {
    outcome = await runSteps(child, quietEmitter);
  } catch (error) {
    // A lost claim ends the whole tree here; anything else is this call's failure, as a tool's would be.
    if (error instanceof ClaimLostError) throw error;
    child.log.error({ err: error }, 'sub-agent failed; its caller is told');
    const message = delegationFailure(call.toolName, errorMessage(error));
    out.toolResult(call.toolCallId, call.toolName, message, true);
    return { kind: 'result', output: { type: 'error-text', value: message } };
  }
  if (outcome.kind === 'finished') {
    out.toolResult(call.toolCallId, call.toolName, { text: outcome.text }, false);
    return { kind: 'result', output: { type: 'json', value: { text: outcome.text } } };
  }
  outcome.plan.actions.push({
    write: {
      run_id: run.runId,
      root_run_id: run.rootRunId,
      tool_call_id: call.toolCallId,
      tool_name: call.toolName,
      kind: 'delegation',
      args,
      fingerprint: null,
      suspend_payload: { runId: child.runId },
      path: run.path,
      requester: run.options.requester ?? null,
      policy_version: null,
      quorum: 1,
      expires_in_ms: null,
    },
  });
  return { kind: 'pending', plan: outcome.plan };
}
