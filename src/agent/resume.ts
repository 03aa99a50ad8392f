import type { ClaimFacts, RunOutcome, CallOutcome, RunState } from './types.js';
import { askAgain, denied, interrupted, runApproved } from './approved-call.js';
import { callTarget, parseCallInput, delegationFailure, runSteps, settleStep } from './step-loop.js';
import { type LeasedRun, latestActionsOfRun } from '../db/pending-actions.js';
import type { PendingAction } from '../db/rows.js';
import type { Emitter } from './stream.js';
import { executeTool, settle } from './execute-tool.js';
import { lastToolCalls } from './run-state.js';
import { unreachable } from '../unreachable.js';

/**
 * Continues a claimed run: settles every call of the step it paused in (each
 * from its latest pending-action row), then goes back to the step loop.
 */
export async function resumeClaimed(run: RunState, out: Emitter, claimed: Partial<LeasedRun> = {}): Promise<RunOutcome> {
  const latest = claimed.actions ?? (await latestActionsOfRun(run.deps.db, run.runId));
  const rows = new Map(latest.map((r) => [r.tool_call_id, r]));
  const paused = await settleStep(run, lastToolCalls(run), async (call) => {
    const row = rows.get(call.toolCallId);
    if (!row) {
      // A call that needed nobody's decision, written down before it ran (checkpointStep): the stopped process may have run it.
      if (claimed.recovered) return interrupted(run, { tool_call_id: call.toolCallId, tool_name: call.toolName, fingerprint: null, policy_version: null }, out);
      return { kind: 'result', output: { type: 'error-text', value: 'No result' } };
    }
    const spentGrant = claimed.spentGrant?.action_id === row.id ? claimed.spentGrant : undefined;
    return settleAction(run, row, call.input, out, { spentGrant, recovered: claimed.recovered === true });
  });
  if (paused) return paused;
  return runSteps(run, out);
}

async function settleAction(
  run: RunState,
  row: PendingAction,
  rawArgs: unknown,
  out: Emitter,
  facts: ClaimFacts,
): Promise<CallOutcome> {
  const call = { toolCallId: row.tool_call_id, toolName: row.tool_name };
  if (row.kind === 'delegation') {
    if (row.status === 'resolved') {
      out.toolResult(call.toolCallId, call.toolName, row.resume_data, false);
      return { kind: 'result', output: { type: 'json', value: (row.resume_data ?? null) as never } };
    }
    if (row.status === 'failed') {
      const message = delegationFailure(call.toolName, row.reason ?? 'unknown error');
      out.toolResult(call.toolCallId, call.toolName, message, true);
      return { kind: 'result', output: { type: 'error-text', value: message } };
    }
    return denied('The delegated task was cancelled.');
  }
  const target = callTarget(run.agent, row.tool_name);
  if (!target) return { kind: 'result', output: { type: 'error-text', value: `Tool ${row.tool_name} not found` } };
  // The snapshot is the run's truth; re-validate what it holds, as it may not be what was approved.
  // An approver's edit: what runs is the request's arguments (approved, and fingerprinted again
  // before they run), never the model's; a policy change asks again for the model's own.
  const edited = row.kind === 'approval' && row.edit != null && row.status === 'approved';
  const parsed = parseCallInput(target, row.tool_name, edited ? row.args : rawArgs);
  const args = parsed.ok ? parsed.args : edited ? row.args : rawArgs;

  if (row.kind === 'suspension') {
    if (row.status !== 'resumed' || target.kind !== 'tool') return denied(row.reason ?? 'The request was cancelled.');
    // The stopped process may have run it with this answer already; running it again could do it twice.
    if (facts.recovered) return interrupted(run, row, out);
    const outcome = await executeTool(run, target.tool, { ...call, args }, { value: row.resume_data, by: row.decided_by, payload: row.suspend_payload });
    return settle(run, call, args, outcome, out);
  }

  switch (row.status) {
    case 'approved':
      return runApproved(run, target, row, args, out, { ...facts, ...(edited ? { proposedArgs: rawArgs } : {}) });
    case 'declined':
      return denied(row.reason ? row.reason : 'The user declined this tool call.');
    case 'expired':
      return denied('The approval request expired before anyone approved it.');
    case 'superseded':
      return askAgain(run, target, row, args, out, facts.recovered);
    case 'cancelled':
    case 'failed':
    // Closed by an edit: the request that replaced it is the call's latest row, never this one.
    case 'edited':
    // Not statuses an approval row reaches; should one ever, the call does not run.
    case 'pending':
    case 'resumed':
    case 'resolved':
      return denied(row.reason ?? 'The request was cancelled.');
    default:
      return unreachable(row.status, 'request status');
  }
}
