import { randomUUID } from 'node:crypto';
import type { LanguageModelV3Message } from '@ai-sdk/provider';
import type { AgentInternals } from './agent-internals.js';
import type { StreamOptions } from './agent.js';
import { loadThreadHistory } from './memory.js';
import type { RunState, RuntimeDeps } from './run-state.js';
import { approvalRulesFor } from './requires-approval.js';

/** The state of a new top-level run of `agent`, with its thread's history loaded when it keeps memory. */
export async function freshRun(
  agent: AgentInternals,
  deps: RuntimeDeps,
  messages: LanguageModelV3Message[],
  options: Omit<StreamOptions, 'threadId' | 'resourceId'>,
  where: { threadId: string | null; resourceId: string | null },
): Promise<RunState> {
  const { threadId, resourceId } = where;
  const runId = options.runId ?? randomUUID();
  const memory = Boolean(agent.memory && threadId && resourceId);
  const history = memory
    ? await loadThreadHistory(deps.db, threadId!, resourceId!, agent.memory!.lastMessages)
    : { messages: [], upTo: null };
  const requestContext =
    options.requestContext instanceof Map ? options.requestContext : new Map(Object.entries(options.requestContext ?? {}));
  const rule = options.requireToolApproval;
  return {
    runId,
    rootRunId: runId,
    parentRunId: null,
    parentToolCallId: null,
    agent,
    path: [agent.id],
    threadId,
    resourceId,
    history: history.messages,
    historyUpTo: history.upTo,
    messages,
    results: {},
    step: 0,
    options: {
      maxSteps: options.maxSteps ?? agent.defaultOptions.maxSteps ?? 10,
      // A function cannot be stored: a restored run applies `true` (fail safe).
      ...(rule !== undefined ? { requireToolApproval: typeof rule === 'boolean' ? rule : true } : {}),
      ...(options.requester ? { requester: options.requester } : {}),
      ...(memory ? { memory: true } : {}),
      ...(requestContext.size ? { requestContext: jsonSafe(Object.fromEntries(requestContext)) } : {}),
    },
    approvalRules: approvalRulesFor([agent], rule),
    requestContext,
    hadSnapshot: false,
    audit: [],
    deps,
    log: deps.logger.child({ runId, agentId: agent.id }),
  };
}

function jsonSafe(value: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    return {};
  }
}
