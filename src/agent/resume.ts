import type { ResumedCall } from './api-types.js';
import type { ClaimFacts, RunOutcome, CallOutcome, RunState } from './run-model.js';
import { askAgain, interrupted, runApproved } from './approved-call.js';
import { denialMessage, denialOf, denied } from './denied-call.js';
import { showEditedCall } from './edited-call.js';
import { callTarget, parseCallInput, delegationFailure, runSteps, settleStep } from './step-loop.js';
import { type LeasedRun, latestActionsOfRun } from '../db/pending-actions.js';
import type { PendingAction } from '../db/rows.js';
import type { Emitter } from './stream.js';
import { executeTool, settle } from './execute-tool.js';
import { announcedAs, lastToolCalls } from './run-state.js';
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
  // The paused step ends here, after its calls' results (its tokens were counted when the model answered).
  out.stepFinish(run.step);
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
    return deny(run, row, rawArgs, out, 'finish');
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
    if (row.status !== 'resumed' || target.kind !== 'tool') return deny(run, row, args, out, 'finish');
    // The stopped process may have run it with this answer already; running it again could do it twice.
    if (facts.recovered) return interrupted(run, row, out);
    out.resumed(resumedCall(run, row, args, 'suspension'));
    const outcome = await executeTool(run, target.tool, { ...call, args }, { value: row.resume_data, by: row.decided_by, payload: row.suspend_payload });
    return settle(run, call, args, outcome, out);
  }

  switch (row.status) {
    case 'approved':
      // The model's history shows the call as it runs, edited arguments included.
      if (edited) showEditedCall(run.messages, row.tool_call_id, args);
      out.resumed(resumedCall(run, row, args, 'approval'));
      return runApproved(run, target, row, args, out, { ...facts, ...(edited ? { proposedArgs: rawArgs } : {}) });
    case 'superseded':
      return askAgain(run, target, row, args, out, facts.recovered);
    case 'declined':
    case 'expired':
    case 'cancelled':
    case 'failed':
    // Closed by an edit: the request that replaced it is the call's latest row, never this one.
    case 'edited':
    // Not statuses an approval row reaches; should one ever, the call does not run.
    case 'pending':
    case 'resumed':
    case 'resolved':
      return deny(run, row, args, out, 'run');
    default:
      return unreachable(row.status, 'request status');
  }
}

/**
 * A call that does not go on (declined, expired, cancelled): the model is told so, by whom and
 * why (denialMessage), and the stream says so with `tool-output-denied`. A declined edit shows
 * in the history with the arguments that were declined.
 */
function deny(run: RunState, row: PendingAction, args: unknown, out: Emitter, verb: 'run' | 'finish'): CallOutcome {
  const denial = denialOf(row);
  if (row.kind === 'approval' && row.edit) showEditedCall(run.messages, row.tool_call_id, row.args);
  const shown = row.kind === 'approval' && row.edit ? row.args : args;
  const message = denialMessage(row.tool_name, denial, verb);
  out.denied({
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    args: shown,
    approval: { id: row.tool_call_id, approved: false, ...(denial.kind === 'declined' && denial.reason ? { reason: denial.reason } : {}) },
    status: row.status,
    ...(row.decided_by ? { by: row.decided_by } : {}),
    message,
    path: run.path,
    runId: run.runId,
  });
  return denied(message);
}

function resumedCall(run: RunState, row: PendingAction, args: unknown, kind: 'approval' | 'suspension'): ResumedCall {
  const shown = announcedAs(run.top, { toolCallId: row.tool_call_id, toolName: row.tool_name, args }, kind);
  return {
    toolCallId: shown.toolCallId,
    ...('innerToolCallId' in shown ? { innerToolCallId: shown.innerToolCallId } : {}),
    toolName: shown.toolName,
    args: shown.args,
    kind,
    // As the suspended chunk carried it, so a UI can mark that question answered in place (Mastra 1.73's chunk does).
    ...(kind === 'suspension' ? { suspendPayload: row.suspend_payload } : {}),
    path: run.path,
    runId: run.runId,
    ...(row.decided_by ? { by: row.decided_by } : {}),
  };
}
