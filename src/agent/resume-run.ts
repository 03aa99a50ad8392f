import { fingerprint } from '../approvals/fingerprint.js';
import { consumeGrant, grantWasSpent, matchSpentGrant, noMatchingGrant, type GrantCheck } from '../approvals/grants.js';
import { applyHook } from './before-tool-call.js';
import { callTarget, parseCallInput, type CallTarget } from './call-target.js';
import type { Claimed, SpentGrant } from '../approvals/record-decision.js';
import { appendAudit } from '../approvals/audit.js';
import { latestActionsOfRun } from '../approvals/pending-actions.js';
import type { PendingAction } from '../db/pending-action.js';
import { delegationFailure } from './delegate.js';
import type { Emitter } from './emitter.js';
import { executeTool } from './execute-tool.js';
import { lastToolCalls, runSteps, settleStep } from './loop.js';
import type { RunOutcome } from './plan.js';
import { approvalAction, approvalGate, callEvent, runCall, runUngated, settle, type CallOutcome } from './plan-tool-call.js';
import type { RunState } from './run-state.js';

export const blockedMessage = (toolName: string) => `Tool call blocked: approval did not match ${toolName} arguments`;

/**
 * Continues a claimed run: settles every call of the step it paused in (each
 * from its latest pending-action row), then goes back to the step loop.
 */
export async function resumeClaimed(run: RunState, out: Emitter, claimed: Partial<Claimed> = {}): Promise<RunOutcome> {
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

export const interruptedMessage = (toolName: string) =>
  `Tool call interrupted: the process running ${toolName} stopped before it reported a result. ` +
  'It may or may not have run, and it was not run again.';

/** What the claim says about a call beyond its row (see Claimed). */
interface ClaimFacts {
  /** The grant the claiming decision spent for this call. */
  spentGrant: SpentGrant | undefined;
  /** The run was taken over from a process that stopped. */
  recovered: boolean;
}

/** A call the stopped process may already have run: at most once, so the model is told instead. */
function interrupted(
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

function denied(reason: string): CallOutcome {
  return { kind: 'result', output: { type: 'execution-denied', reason } };
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
  const parsed = parseCallInput(target, row.tool_name, rawArgs);
  const args = parsed.ok ? parsed.args : rawArgs;

  if (row.kind === 'suspension') {
    if (row.status !== 'resumed' || target.kind !== 'tool') return denied(row.reason ?? 'The request was cancelled.');
    // The stopped process may have run it with this answer already; running it again could do it twice.
    if (facts.recovered) return interrupted(run, row, out);
    const outcome = await executeTool(run, target.tool, { ...call, args }, { value: row.resume_data, by: row.decided_by });
    return settle(run, call, args, outcome, out);
  }

  switch (row.status) {
    case 'approved':
      return runApproved(run, target, row, args, out, facts);
    case 'declined':
      return denied(row.reason ? row.reason : 'The user declined this tool call.');
    case 'expired':
      return denied('The approval request expired before anyone approved it.');
    case 'superseded':
      return askAgain(run, target, row, args, out, facts.recovered);
    default:
      return denied(row.reason ?? 'The request was cancelled.');
  }
}

/** The policy changed under the request: ask again under the current one, or run if it no longer needs approval. */
async function askAgain(
  run: RunState,
  target: CallTarget,
  row: PendingAction,
  args: unknown,
  out: Emitter,
  recovered: boolean,
): Promise<CallOutcome> {
  const call = { toolCallId: row.tool_call_id, toolName: row.tool_name };
  const gate = await approvalGate(run, target, row.tool_name, args);
  if (gate.required) {
    return { kind: 'pending', plan: { snapshots: [], actions: [approvalAction(run, call, args, gate.requirement)] } };
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
async function runApproved(
  run: RunState,
  target: CallTarget,
  row: PendingAction,
  args: unknown,
  out: Emitter,
  { spentGrant, recovered }: ClaimFacts,
): Promise<CallOutcome> {
  const call = { toolCallId: row.tool_call_id, toolName: row.tool_name };
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
  if (recovered && (await grantWasSpent(run.deps.db, check))) return interrupted(run, row, out);
  // Approved under another policy than the one in force here (it changed while the run still
  // waited on another call of the step): that approval may not satisfy this policy, so the call
  // is asked for again under it. A grant the deciding vote spent was checked against this very
  // policy a moment ago.
  if (!spentGrant && row.policy_version !== run.deps.policy.version) {
    run.log.info({ toolCallId: call.toolCallId, from: row.policy_version, to: run.deps.policy.version }, 'policy changed after approval; asked again');
    run.audit.push({
      event: 'superseded',
      runId: run.runId,
      toolCallId: call.toolCallId,
      toolName: row.tool_name,
      fingerprint: fp,
      policyVersion: row.policy_version,
      detail: { reason: 'policy changed after approval, before the call ran' },
    });
    return askAgain(run, target, row, args, out, recovered);
  }
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
  return runCall(run, target, call, hooked.args, out, { fingerprint: fp, policyVersion: row.policy_version });
}
