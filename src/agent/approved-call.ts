import type { LeaseFacts, CallOutcome, RunState, CallTarget } from './run-model.js';
import { fingerprint } from '../approvals/fingerprint.js';
import { consumeGrant, grantWasSpent, matchSpentGrant, noMatchingGrant, type GrantCheck } from '../db/grants.js';
import { applyHook } from './before-tool-call.js';
import { callEvent, runCall, runUngated } from './step-loop.js';
import { appendAudit } from '../db/audit.js';
import type { PendingAction } from '../db/rows.js';
import type { Emitter } from './stream.js';
import { approvalAction, approvalGate } from './approval-gate.js';
import { editNote, withNote } from './edited-call.js';
import { bindAgain, checkBinding, mustCheckBinding, unbound, withBinding } from './bound-call.js';
import type { AskedAgain, RequestBinding } from './request-binding.js';
import { refuseByPolicy } from './denied-call.js';
import { policyHold } from './policy-hold.js';
import { blockedMessage } from './blocked-message.js';

export const interruptedMessage = (toolName: string) =>
  `Tool call interrupted: the process running ${toolName} stopped before it reported a result. ` +
  'It may or may not have run, and it was not run again.';

/** A call the stopped process may already have run: at most once, so the model is told instead. */
export function interrupted(
  run: RunState,
  row: Pick<PendingAction, 'tool_call_id' | 'tool_name' | 'fingerprint' | 'policy_version'>,
  out: Emitter,
): CallOutcome {
  const message = interruptedMessage(row.tool_name);
  run.log.warn({ toolCallId: row.tool_call_id, tool: row.tool_name }, 'run taken over: call interrupted, not run again');
  run.audit.push({
    event: 'interrupted',
    runId: run.runId,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    fingerprint: row.fingerprint,
    policyVersion: row.policy_version,
    detail: { reason: 'the process continuing the run stopped' },
  });
  out.toolResult(row.tool_call_id, row.tool_name, message, true);
  return { kind: 'result', output: { type: 'error-text', value: message } };
}

/**
 * The policy changed under the request, or what its approval was bound to moved (`rebound`, see
 * bound-call.ts): ask again under the current policy, or run if it no longer needs approval.
 * `held`: why, when the policy (or a change freeze) held the approved call, kept on the new request.
 */
export async function askAgain(
  run: RunState,
  target: CallTarget,
  row: PendingAction,
  args: unknown,
  out: Emitter,
  recovered: boolean,
  rebound?: RequestBinding,
  held?: AskedAgain,
): Promise<CallOutcome> {
  const call = { toolCallId: row.tool_call_id, toolName: row.tool_name };
  const gate = await approvalGate(run, target, row.tool_name, args, row.tool_call_id);
  if (gate.outcome === 'denied') return recovered ? interrupted(run, row, out) : refuseByPolicy(run, call, args, gate.denial, gate.requirement.policyVersion, out);
  if (gate.outcome === 'asks') {
    const bound = rebound ? { kind: 'bound' as const, binding: rebound } : await bindAgain(run, target, row, args, out);
    if (bound.kind === 'refused') return bound.outcome;
    const binding = held ? { ...bound.binding, askedAgain: held } : bound.binding;
    return { kind: 'pending', plan: { snapshots: [], actions: [withBinding(approvalAction(run, call, args, gate.requirement), binding)] } };
  }
  // Nothing records that the stopped process ran it, so it may have: at most once.
  if (recovered) return interrupted(run, row, out);
  return runUngated(run, target, call, args, out);
}

/**
 * The gate for an approved call: hook, fingerprint of what is about to run,
 * the grant for exactly that (spent by the deciding vote, or spent now), then
 * the call. Nothing runs that the grant does not match.
 */
export async function runApproved(
  run: RunState,
  target: CallTarget,
  row: PendingAction,
  args: unknown,
  out: Emitter,
  { spentGrant, recovered, proposedArgs }: LeaseFacts & { proposedArgs?: unknown },
): Promise<CallOutcome> {
  const call = { toolCallId: row.tool_call_id, toolName: row.tool_name };
  // The policy as it stands now (see policy-hold.ts): a deny holds before the hook is asked.
  const held = policyHold(run, row, spentGrant !== undefined);
  if (held?.kind === 'denied' && !recovered) return refuseByPolicy(run, call, args, held.denial, held.policyVersion, out);
  const hooked = await applyHook(run, { ...call, args });
  if (!hooked.ok) {
    run.audit.push({ ...callEvent(run, call, 'blocked', { reason: hooked.reason }), fingerprint: row.fingerprint, policyVersion: row.policy_version });
    out.toolResult(call.toolCallId, call.toolName, hooked.value, hooked.isError);
    return { kind: 'result', output: hooked.output };
  }
  const fp = fingerprint(row.tool_name, hooked.args);
  const check: GrantCheck = {
    runId: run.runId,
    toolCallId: call.toolCallId,
    toolName: row.tool_name,
    fingerprint: fp,
    policyVersion: row.policy_version ?? '',
  };
  // Spent, but not by this process: the one that spent it stopped, maybe after running the call.
  if (recovered && (await grantWasSpent(run.deps.db, check, row.id))) return interrupted(run, row, out);
  if (held?.kind === 'denied') return refuseByPolicy(run, call, args, held.denial, held.policyVersion, out);
  // Approved under another requirement than the one in force here (the policy changed while the
  // run still waited on another call of the step, or a change freeze began or ended): that
  // approval may not satisfy it, so the call is asked for again under it.
  if (held?.kind === 'ask-again') {
    run.log.info({ toolCallId: call.toolCallId, from: row.policy_version, to: held.to }, 'policy or freeze changed after approval; asked again');
    run.audit.push({
      event: 'superseded',
      runId: run.runId,
      toolCallId: call.toolCallId,
      toolName: row.tool_name,
      fingerprint: fp,
      policyVersion: row.policy_version,
      detail: held.freezes
        ? { reason: 'a change freeze is in force that the approval was not given under, before the call ran', freezes: held.freezes }
        : { reason: row.policy_version?.startsWith(`${run.deps.policy.version}+freeze:`) ? 'the change freeze it was approved under is over, before the call ran' : 'policy changed after approval, before the call ran' },
    });
    return askAgain(run, target, row, args, out, recovered, undefined, { fromActionId: row.id, why: held.freezes ? 'freeze' : 'policy-changed' });
  }
  // Bound to what will actually happen (bound-call.ts): the tool's definition and its preview's
  // state, worked out again now, must be what was approved; the grant carries both. (Arguments
  // that differ from the request's are blocked at the grant whatever they are bound to.)
  const bound = fp === row.fingerprint && mustCheckBinding(target, row) ? await checkBinding(run, target, row, hooked.args, out) : unbound;
  if (bound.kind === 'refused') return bound.outcome;
  if (bound.kind === 'ask-again') return askAgain(run, bound.target, row, args, out, recovered, bound.binding);
  check.stateDigest = bound.stateDigest;
  check.toolDigest = bound.toolDigest;
  // consumeGrant writes `consumed` or `blocked` itself; the deciding vote wrote `consumed` for the
  // grant it spent, and `blocked` is written now: the card is redrawn from it as soon as the
  // stream says so, before the run's next write.
  const grant = spentGrant ? matchSpentGrant(spentGrant, check) : await consumeGrant(run.deps.db, check);
  if (spentGrant && !grant.ok) {
    await appendAudit(run.deps.db, [
      ...run.audit.splice(0),
      { event: 'blocked', runId: run.runId, toolCallId: call.toolCallId, toolName: row.tool_name, fingerprint: fp, policyVersion: row.policy_version, detail: { reason: noMatchingGrant } },
    ]);
  }
  if (!grant.ok && grant.expired) {
    // The arguments are what was approved, but the approval is older than a grant may live (the
    // step waited on another call that long): it is asked for again rather than reported as changed.
    run.log.info({ toolCallId: call.toolCallId }, 'approval expired before the call ran; asked again');
    return askAgain(run, target, row, args, out, recovered);
  }
  if (!grant.ok) {
    const message = blockedMessage(row.tool_name);
    run.log.warn({ toolCallId: call.toolCallId, expected: row.fingerprint, actual: fp }, 'approved call blocked: no matching grant');
    out.toolResult(call.toolCallId, call.toolName, message, true);
    out.blocked({ toolCallId: call.toolCallId, toolName: row.tool_name, path: run.path, runId: run.runId });
    return { kind: 'result', output: { type: 'error-text', value: message } };
  }
  const note = row.edit ? editNote(row, proposedArgs ?? row.edit.proposedArgs) : undefined;
  const outcome = await runCall(run, target, call, hooked.args, out, {
    fingerprint: fp,
    policyVersion: row.policy_version,
    ...(row.edit ? { detail: { args: hooked.args, editedBy: row.edit.editor, actionId: row.id } } : {}),
  });
  return note && outcome.kind === 'result' ? { ...outcome, output: withNote(outcome.output, note) } : outcome;
}
