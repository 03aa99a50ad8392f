import type { LanguageModelV3Message, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { cancelPendingRuns, pendingActionsOfRoot, type CancelledMemory } from '../db/pending-actions.js';
import { findSnapshot } from '../db/run-snapshots.js';
import { denialMessage, deniedOutput } from './denied-call.js';
import type { RuntimeDeps, Snapshot } from './run-model.js';

/**
 * Cancels every pending request of these top-level runs and stops them, in one statement (a
 * decision at the same moment either comes first or finds its request cancelled). Nothing
 * further runs and no model is asked to carry on; but a run with thread memory leaves what it
 * said in the thread's memory, in that same statement, with each call of its last step that had
 * no result answered "Tool call cancelled by <actor>; … did not run: <reason>": the next run in
 * the thread is told the calls were cancelled, by whom, and never sees a call left unanswered
 * (which providers refuse). Returns the ids of the requests cancelled.
 */
export async function cancelRuns(deps: RuntimeDeps, rootRunIds: readonly string[], actor: string, reason: string): Promise<number[]> {
  const memory = (await Promise.all(rootRunIds.map((id) => cancelledMemory(deps, id, actor, reason)))).filter((m) => m !== undefined);
  return cancelPendingRuns(deps.db, [...rootRunIds], actor, reason, memory);
}

async function cancelledMemory(deps: RuntimeDeps, runId: string, actor: string, reason: string): Promise<CancelledMemory | undefined> {
  const row = await findSnapshot(deps.db, runId);
  if (!row || row.status !== 'suspended' || row.parent_run_id !== null || !row.thread_id || !row.resource_id) return undefined;
  const snapshot = row.snapshot as unknown as Snapshot;
  if (!snapshot.options?.memory) return undefined;
  const messages: LanguageModelV3Message[] = [...snapshot.messages];
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    const calls = last.content.flatMap((p) => (p.type === 'tool-call' ? [p] : []));
    // Whether a call waited for approval (it did not run) or was a question or a delegation under way (it did not finish).
    const kinds = new Map((await pendingActionsOfRoot(deps.db, runId)).filter((a) => a.run_id === runId).map((a) => [a.tool_call_id, a.kind]));
    const output = (toolCallId: string, toolName: string): LanguageModelV3ToolResultOutput =>
      snapshot.results[toolCallId] ?? deniedOutput(denialMessage(toolName, { kind: 'cancelled', by: actor, reason }, kinds.get(toolCallId) === 'approval' || !kinds.has(toolCallId) ? 'run' : 'finish'));
    if (calls.length > 0) messages.push({ role: 'tool', content: calls.map((c) => ({ type: 'tool-result', toolCallId: c.toolCallId, toolName: c.toolName, output: output(c.toolCallId, c.toolName) })) });
  }
  return { runId, threadId: row.thread_id, resourceId: row.resource_id, messages };
}
