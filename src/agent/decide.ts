import { startContinuation } from './run-lifecycle.js';
import { rowLike, type RequestLike } from './request.js';
import { childLogger } from './child-logger.js';
import { authorizeActor, type RefusalReason } from '../approvals/authorize-actor.js';
import { closeAction, recordApprovalVote, recordDecline, findAction, findDecisionTarget, pendingActionsOfRoot } from '../db/pending-actions.js';
import { callUnderDelegation } from './waiting-calls.js';
import type { PendingAction } from '../db/rows.js';
import { appendAudit } from '../db/audit.js';
import { requirementOfRequest, type Requirement } from '../approvals/requirement-for.js';
import { approversAt } from '../approvals/approvers-at.js';
import { findSnapshot } from '../db/run-snapshots.js';
import { observeDecision } from '../metrics/bot-metrics.js';
import type { Actor, Decision, DecisionRequest } from './api-types.js';
import type { AgentInternals, RuntimeDeps } from './run-model.js';
import { rememberForOf } from './remembered-call.js';
import { findAgent } from './run-state.js';
import { outsideWorkspace, outsideWorkspaceMessage } from '../approvals/workspace.js';
import { unreachable } from '../unreachable.js';
import { MAX_REASON_LENGTH } from '../approvals/reason-limit.js';

export const apiActor = { userId: 'api' } as const;

/** What a front end may add to a decision: see Agent.decideToolCall. */
export interface DecisionContext {
  /** The request as the caller read it moments ago (its row or a Request); saves a read. */
  action?: RequestLike;
  /** The run's continuation waits for this (see startContinuation). */
  startAfter?: PromiseLike<unknown>;
}

export async function locateAction(
  root: AgentInternals,
  deps: RuntimeDeps,
  req: DecisionRequest,
  kinds: Array<'approval' | 'suspension'>,
  known?: { action: PendingAction },
): Promise<PendingAction | { outcome: 'not-found'; runId: string; toolCallId?: string; runExists: boolean }> {
  const runId = req.runId ?? '';
  const action =
    req.actionId !== undefined
      ? known?.action.id === req.actionId
        ? known.action
        : await findAction(deps.db, req.actionId)
      : req.runId !== undefined
        ? await decisionTarget(deps, req.runId, req.toolCallId, kinds)
        : undefined;
  const belongs =
    action &&
    kinds.includes(action.kind as 'approval' | 'suspension') &&
    (action.path ?? [])[0] === root.id &&
    (req.actionId === undefined || !req.runId || action.root_run_id === req.runId || action.run_id === req.runId);
  if (!action || !belongs) {
    const runExists = req.runId !== undefined && (await findSnapshot(deps.db, req.runId)) !== undefined;
    return { outcome: 'not-found', runId, ...(req.toolCallId ? { toolCallId: req.toolCallId } : {}), runExists };
  }
  return action;
}

/**
 * The request a run + call id names: the run's own call, or else a sub-agent's call announced
 * under the top-level delegation's id, as Mastra announces it (the tree is read only when the id
 * names no pending call of the run: a delegation that was itself approved keeps its id).
 */
async function decisionTarget(deps: RuntimeDeps, runId: string, toolCallId: string | undefined, kinds: Array<'approval' | 'suspension'>): Promise<PendingAction | undefined> {
  const own = await findDecisionTarget(deps.db, runId, toolCallId, kinds);
  if (own?.status === 'pending' || toolCallId === undefined) return own;
  return callUnderDelegation(await pendingActionsOfRoot(deps.db, runId), runId, toolCallId, kinds) ?? own;
}

/**
 * Records one approve/decline and, when it was the last thing the run waited
 * for, continues the run. Refusals change nothing and say why.
 */
export async function decide(...args: Parameters<typeof recordDecision>): Promise<Decision> {
  const decided = await recordDecision(...args);
  observeDecision(decided);
  return decided;
}

async function recordDecision(
  root: AgentInternals,
  deps: RuntimeDeps,
  req: DecisionRequest,
  decision: 'approve' | 'decline',
  known: DecisionContext = {},
): Promise<Decision> {
  const found = await locateAction(root, deps, req, ['approval'], known.action ? { action: rowLike(known.action) } : undefined);
  if ('outcome' in found) return found;
  const action = found;
  const actor = req.actor ?? apiActor;
  const log = childLogger(deps.logger, { runId: action.run_id, toolCallId: action.tool_call_id, actionId: action.id });

  const refused = (why: string) => auditRefusal(deps, action, actor.userId, decision, why);
  // The same check a front end asks before it opens a form (Agent.checkDecision), then what it found is done.
  const check = await checkDecision(root, deps, action, actor, decision, { fingerprint: req.fingerprint, reason: req.reason });
  switch (check.outcome) {
    case 'allowed':
      break;
    case 'already-decided':
      await refused('already-decided');
      return { outcome: 'already-decided', action };
    // locateAction found an approval request, and only an edit is checked for being editable.
    case 'not-found':
    case 'not-editable':
      throw new Error(`decision check: ${check.outcome} for approval request ${action.id}`);
    case 'fingerprint-mismatch':
      log.warn({ presented: req.fingerprint }, 'decision refused: fingerprint does not match the pending call');
      await refused('fingerprint-mismatch');
      return { outcome: 'fingerprint-mismatch', action };
    case 'not-allowed':
      if (check.why === 'reason-too-long' || check.why === 'reason-invalid') {
        const given: unknown = req.reason;
        log.info({ actor: actor.userId, why: check.why, length: typeof given === 'string' ? given.length : undefined }, 'decision refused: the reason is out of bounds');
      } else if (check.why === 'reason-required') {
        log.info({ actor: actor.userId }, 'approval refused: the policy requires a reason');
      } else {
        log.info({ actor: actor.userId, why: check.why }, 'decision refused');
      }
      await refused(check.why);
      return { outcome: 'not-allowed', action, why: check.why, message: check.message };
    case 'expired': {
      if (check.closed) {
        await refused('expired');
        return { outcome: 'expired', action };
      }
      const expired = await closeAction(deps.db, { actionId: action.id, status: 'expired' });
      await refused('expired');
      if (!expired) return refreshed(deps, action);
      return { outcome: 'expired', action: expired, stream: startContinuation(root, deps, action.run_id, action.root_run_id, undefined, known.startAfter) };
    }
    default:
      return unreachable(check, 'decision check');
  }
  const current = check.requirement;
  const reason = typeof req.reason === 'string' && req.reason.trim() ? req.reason.trim() : undefined;
  // Approving under another policy version would spend a grant the gate no longer honours: the
  // request is asked again under the current policy (or runs, if that no longer asks). Only by
  // someone the current policy lets decide it, checked above. A decline runs nothing, so it
  // stands under the version it was asked with.
  if (check.policyChanged && decision === 'approve') {
    const closed = await closeAction(deps.db, { actionId: action.id, status: 'superseded', actor: actor.userId, reason: 'policy changed' });
    if (!closed) return refreshed(deps, action);
    log.info({ from: action.policy_version, to: current.policyVersion }, 'policy changed; request evaluated again');
    return { outcome: 'policy-changed', action: closed, stream: startContinuation(root, deps, action.run_id, action.root_run_id, undefined, known.startAfter) };
  }

  if (decision === 'decline') {
    const written = await recordDecline(deps.db, {
      actionId: action.id,
      actor: actor.userId,
      reason: reason ?? null,
      policyVersion: action.policy_version ?? '',
    });
    if (!written) return refreshed(deps, action);
    const { row, leased } = written;
    return { outcome: 'declined', action: row, stream: startContinuation(root, deps, row.run_id, row.root_run_id, leased, known.startAfter) };
  }

  // Remembering is offered only where the current policy (and the tool) allow it; elsewhere the click is a plain approve.
  const rememberForMs = req.remember ? rememberForOf(current, findAgent(root, action.path ?? [root.id])?.tools[action.tool_name], action.args, action.requester) : undefined;
  const written = await recordApprovalVote(deps.db, {
    actionId: action.id,
    actor: actor.userId,
    policyVersion: action.policy_version ?? '',
    grantTtlMs: deps.grantTtlMs,
    // What the approval satisfied (the request's requirement, limits included) is kept with it: a later call uses it only if it asks no more.
    remember: rememberForMs !== undefined ? { forMs: rememberForMs, satisfied: current } : undefined,
    reason,
  });
  if (!written) return refreshed(deps, action);
  const { row, leased } = written;
  if (row.status === 'pending') {
    return { outcome: 'approval-recorded', action: row, approvals: row.approvals.map((a) => a.userId), quorum: row.quorum, alreadyCounted: false };
  }
  const remembered = written.remembered ? { remembered: { id: written.remembered.id, expiresAt: new Date(written.remembered.expires_at) } } : {};
  return { outcome: 'approved', action: row, stream: startContinuation(root, deps, row.run_id, row.root_run_id, leased, known.startAfter), ...remembered };
}

/**
 * What deciding a request would come to, without deciding it (a dry run: nothing is written):
 * - `allowed`: the decision would be recorded; `requirement` is the request's requirement under
 *   the policy in force (limits included) and `policyChanged` says an approval would ask again;
 * - `already-decided`: the request is no longer pending (`expired` when it expired);
 * - `expired`: it expired, or is past its time and not yet swept (`closed: false`: deciding it expires it);
 * - `fingerprint-mismatch`: the arguments are not those the decider saw (`fingerprint` given);
 * - `not-allowed`: the actor may not (outside the workspace, not an approver, self-approval, a
 *   group that could not be looked up, a reason too long, none where the policy wants one);
 * - `not-editable` (edit only): the policy turns editing off, or the tool cannot be found;
 * - `not-found`: it is not an approval request.
 * decide() and editToolCall() are this check followed by the write; a front end asks it before
 * opening a form, so nobody fills one in for a request they cannot decide. `reasonToCome`: the
 * reason is asked for next (a reason modal), so its absence is not refused yet.
 */
export type DecisionCheck =
  | { outcome: 'allowed'; requirement: Requirement; policyChanged: boolean }
  | { outcome: 'already-decided' }
  | { outcome: 'expired'; closed: boolean }
  | { outcome: 'fingerprint-mismatch' }
  | { outcome: 'not-allowed'; why: string; message: string }
  | { outcome: 'not-editable'; why: 'edit-not-allowed' | 'tool-not-found' }
  | { outcome: 'not-found' };

export interface DecisionCheckOptions {
  /** The fingerprint (or its prefix) of the arguments the decider saw. */
  fingerprint?: string;
  /** The reason given with the decision, as given (checked: text of at most MAX_REASON_LENGTH characters). */
  reason?: unknown;
  /** The reason is asked for next: a missing one is not refused (the decision itself still is). */
  reasonToCome?: boolean;
}

export async function checkDecision(
  root: AgentInternals,
  deps: RuntimeDeps,
  action: PendingAction,
  actor: Actor,
  decision: 'approve' | 'decline' | 'edit',
  options: DecisionCheckOptions = {},
): Promise<DecisionCheck> {
  if (action.kind !== 'approval') return { outcome: 'not-found' };
  if (action.status === 'expired') return { outcome: 'expired', closed: true };
  if (action.status !== 'pending') return { outcome: 'already-decided' };
  if (options.fingerprint && !(action.fingerprint ?? '').startsWith(options.fingerprint)) return { outcome: 'fingerprint-mismatch' };
  // Typed callers cannot pass anything but a string; plain JavaScript and forged requests can.
  const given = options.reason;
  if (given !== undefined && (typeof given !== 'string' || given.trim().length > MAX_REASON_LENGTH)) {
    return typeof given === 'string'
      ? { outcome: 'not-allowed', why: 'reason-too-long', message: `A reason may be at most ${MAX_REASON_LENGTH.toLocaleString('en-US')} characters; this one has ${given.trim().length.toLocaleString('en-US')}.` }
      : { outcome: 'not-allowed', why: 'reason-invalid', message: 'A reason must be text.' };
  }
  const requirement = requirementOfRequest(deps.policy, action, deps.mcpIdentity, deps.now());
  // An edit is its editor's approval: held to the approve rule.
  const verdict = await mayDecide(deps, action, actor, decision === 'decline' ? 'decline' : 'approve', requirement);
  if (!verdict.allowed) return { outcome: 'not-allowed', why: verdict.why, message: verdict.message };
  if (decision === 'edit') {
    const agent = findAgent(root, [...(action.path ?? [root.id])]);
    if (!agent || !Object.hasOwn(agent.tools, action.tool_name)) return { outcome: 'not-editable', why: 'tool-not-found' };
    // The request as it stands, the limits it went over included: a limit may turn editing off.
    if (requirement.allowEdit === false) return { outcome: 'not-editable', why: 'edit-not-allowed' };
  }
  // The button is not the guard: every way of approving (API, Slack, inbox) is held to it here.
  const reason = typeof given === 'string' && given.trim() ? given : undefined;
  if (decision === 'approve' && requirement.requireReason && reason === undefined && !options.reasonToCome) {
    return { outcome: 'not-allowed', why: 'reason-required', message: 'Approving this request needs a reason; give one with the approval.' };
  }
  if (action.expires_at && new Date(action.expires_at).getTime() <= Date.now()) return { outcome: 'expired', closed: false };
  return { outcome: 'allowed', requirement, policyChanged: requirement.policyVersion !== action.policy_version };
}

/**
 * A refused attempt goes on the audit trail as `refused` (who, which decision, why), so a
 * self-approval or a click by someone who is not an approver is on record, not only in a log.
 * Only refusals write: the decisions themselves cost what they did.
 */
export async function auditRefusal(deps: RuntimeDeps, action: PendingAction, actor: string, decision: 'approve' | 'decline' | 'edit', why: string): Promise<void> {
  try {
    await appendAudit(deps.db, [
      {
        event: 'refused',
        runId: action.run_id,
        toolCallId: action.tool_call_id,
        toolName: action.tool_name,
        actor,
        fingerprint: action.fingerprint,
        policyVersion: action.policy_version,
        detail: { actionId: action.id, decision, why },
      },
    ]);
  } catch (error) {
    // The refusal itself stands; only its record is missing, which the log line says.
    deps.logger.warn({ err: error, actionId: action.id, actor, why }, 'refusal could not be audited');
  }
}

/** After a conditional update found nothing: say what the row became instead. */
export async function refreshed(deps: RuntimeDeps, action: PendingAction): Promise<Decision> {
  const now = (await findAction(deps.db, action.id)) ?? action;
  if (now.status === 'expired') return { outcome: 'expired', action: now };
  if (now.status === 'pending' && now.expires_at && new Date(now.expires_at).getTime() <= Date.now()) {
    return { outcome: 'expired', action: now };
  }
  if (now.status === 'superseded') return { outcome: 'policy-changed', action: now };
  if (now.status === 'pending') {
    return { outcome: 'approval-recorded', action: now, approvals: now.approvals.map((a) => a.userId), quorum: now.quorum, alreadyCounted: true };
  }
  return { outcome: 'already-decided', action: now };
}

/**
 * The rule every authorisation starts with, before any other (the requester's own withdrawal
 * included): a person whose team is given must be a member of the workspace the runtime serves,
 * or of a team the policy trusts (approvals/workspace.ts). Undefined when the actor may go on.
 */
export function workspaceRefusal(deps: Pick<RuntimeDeps, 'workspace' | 'policy'>, actor: Actor): { allowed: false; why: 'outside-workspace'; message: string } | undefined {
  return outsideWorkspace(actor, deps.workspace, deps.policy.allowExternalTeams)
    ? { allowed: false, why: 'outside-workspace', message: outsideWorkspaceMessage }
    : undefined;
}

/** Why a decision was refused: authorizeActor's reasons, or a group lookup that failed (try again). */
export type DecisionVerdict = { allowed: true } | { allowed: false; why: RefusalReason | 'group-lookup-failed'; message: string };

/**
 * May `actor` approve (or decline) this request under the current policy? The
 * approver rules (authorizeActor), except that the requester may always
 * withdraw their request, and may let it go on once the policy no longer asks
 * for approval. A group lookup that fails refuses (fail closed) with a message
 * that says a retry may work. Every decision is checked with this, and a front
 * end may ask it first (Agent.mayDecide) to refuse before opening a form.
 */
export async function mayDecide(
  deps: RuntimeDeps,
  action: Pick<PendingAction, 'tool_name' | 'args' | 'requester' | 'policy_version'> & { path?: string[] | null; created_at?: PendingAction['created_at']; limit_hits?: unknown },
  actor: Actor,
  decision: 'approve' | 'decline',
  /** The request's requirement under the policy in force, when the caller has just worked it out. */
  known?: Requirement,
): Promise<DecisionVerdict> {
  const outside = workspaceRefusal(deps, actor);
  if (outside) return outside;
  // The limits the request went over when it was asked still hold for deciding it (their approvers, self-approval).
  const policyRequirement = known ?? requirementOfRequest(deps.policy, action, deps.mcpIdentity, deps.now());
  // Once escalated, the policy's escalateTo decide too. Escalation is part of the policy (and so of
  // its version), and a request's age is fixed, so a grant one of them makes is honoured like any other.
  const current =
    action.created_at === undefined
      ? policyRequirement
      : { ...policyRequirement, approvers: approversAt(policyRequirement, new Date(action.created_at), deps.now()) };
  const policyChanged = current.policyVersion !== action.policy_version;
  const isRequester = action.requester !== null && action.requester === actor.userId;
  if (isRequester && (decision === 'decline' || (policyChanged && !current.requireApproval))) return { allowed: true };
  try {
    return await authorizeActor({
      requirement: current,
      actor,
      toolName: action.tool_name,
      ...(action.requester ? { requester: action.requester } : {}),
      ...(deps.botUserId ? { botUserId: deps.botUserId } : {}),
      ...(deps.resolveGroupMembers ? { resolveGroupMembers: deps.resolveGroupMembers } : {}),
    });
  } catch (error) {
    deps.logger.warn({ err: error, actor: actor.userId }, 'approver group lookup failed');
    return { allowed: false, why: 'group-lookup-failed', message: 'Could not check approver group membership right now; try again in a moment.' };
  }
}
