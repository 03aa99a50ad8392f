import type { ButtonAction } from '@slack/bolt';
import type { Decision } from '../../agent/api-types.js';
import { declineModal, parseDeclineModal, approveReasonModal, parseApproveReasonModal } from './approval-modals.js';
import { actorOf, type Click, type SlackContext, type Person, tellUser } from '../context.js';
import { findCard } from '../card/cards.js';
import { tamperedButton, genuineButton, type GenuineButton, type CheckedClick, describeOutcome, onItsCard, refusalSeenBy } from '../card/button-check.js';
import { markDecisionInFlight } from '../card/lifecycle.js';
import { showDecision } from './show-decision.js';
import { failureText } from '../kit/error-reference.js';
import { requestOf, type Request } from '../../agent/request.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { unreachable } from '../../unreachable.js';
import type { SubmittedView } from '../kit/submitted-payloads.js';
import { describedCall } from '../card/render-card.js';

export type RecordedApproval =
  | { kind: 'no-click' }
  | { kind: 'tampered'; click: Click }
  | { kind: 'decided'; click: Click; button: GenuineButton; decision: Decision; done: () => void };

/**
 * An Approve click, up to its recorded decision: the button must be the very
 * card's, and the decision is bound to its fingerprint; the run's work waits
 * for `startAfter`. Nothing is posted here (showApproval does it).
 */
export async function recordApproval(
  ctx: SlackContext,
  click: Click | undefined,
  action: ButtonAction,
  startAfter: Promise<void>,
  options: { remember?: boolean } = {},
): Promise<RecordedApproval> {
  if (!click) {
    ctx.logger.warn('approve click without user or channel');
    return { kind: 'no-click' };
  }
  const button = await genuineButton(ctx, click, action);
  if (!button) return { kind: 'tampered', click };
  const done = markDecisionInFlight(ctx, button.value.actionId);
  try {
    const decision = await decideFromButton(ctx, button, click, 'approve', startAfter, options.remember === true);
    ctx.logger.info({ actionId: button.value.actionId, user: click.user, outcome: decision.outcome }, 'approve clicked');
    return { kind: 'decided', click, button, decision, done };
  } catch (error) {
    done();
    throw error;
  }
}

/** Shows a recorded approval: the card redrawn (or the clicker told why not), then the run's continuation. */
export async function showApproval(ctx: SlackContext, recorded: RecordedApproval): Promise<void> {
  if (recorded.kind === 'no-click') return;
  if (recorded.kind === 'tampered') return tellUser(ctx, recorded.click, tamperedButton);
  const { decision, click } = recorded;
  // The policy wants a reason (it may have started to after the card was drawn, or the click came
  // from the inbox): the refusal is on record, and the clicker gets the form instead of an error.
  if (decision.outcome === 'not-allowed' && decision.why === 'reason-required' && click.triggerId) {
    recorded.done();
    return openReasonModal(ctx, click, requestOf(decision.action));
  }
  try {
    await showDecision(ctx, recorded.decision, recorded.click, recorded.button.card);
  } finally {
    recorded.done();
  }
}

/** The decision a genuine button asks for, by the signed-in clicker, bound to the card's fingerprint. */
function decideFromButton(ctx: SlackContext, button: GenuineButton, click: Click, decision: 'approve' | 'decline', startAfter?: Promise<void>, remember = false) {
  return ctx.agent.decideToolCall(
    {
      actionId: button.value.actionId,
      fingerprint: button.value.fingerprintPrefix,
      actor: actorOf(click),
      decision,
      ...(remember ? { remember: true } : {}),
    },
    { ...(button.row ? { action: button.row } : {}), ...(startAfter ? { startAfter } : {}) },
  );
}

/**
 * Checks what can be checked before the modal opens, so nobody writes a reason
 * for a request they cannot decline; the decision itself is checked again on submit.
 * When the modal cannot open (the trigger expired, Slack is down) the decline
 * still happens, without a reason.
 */
export async function openDecline(ctx: SlackContext, click: Click | undefined, action: ButtonAction): Promise<void> {
  const checked = await checkedBeforeModal(ctx, click, action, { as: 'decline', groupLookupMayRetry: true });
  if (!checked) return;
  const { click: at, button, row } = checked;
  try {
    if (!at.triggerId) throw new Error('no trigger_id');
    await ctx.client.views.open({
      trigger_id: at.triggerId,
      view: declineModal({ actionId: row.id, fingerprint: row.fingerprint, toolName: row.toolName }),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: button.value.actionId }, 'decline modal could not open; declining without a reason');
    const done = markDecisionInFlight(ctx, button.value.actionId);
    try {
      await showDecision(ctx, await decideFromButton(ctx, button, at, 'decline'), at, button.card);
    } finally {
      done();
    }
  }
}

/** What a decision modal (decline reason, approve reason) carries back: the request, the arguments seen, the reason. */
interface DecisionSubmission {
  actionId: number;
  fingerprintPrefix: string;
  reason?: string;
}

interface RecordedDecision {
  actionId: number;
  decision: Decision;
}

/**
 * A decision modal's submission, up to its recorded decision: the metadata binds it to the
 * request and the arguments the person saw, and the runtime checks it as any decision. The run's
 * work waits for `startAfter`. Undefined (logged) when the metadata is not ours.
 */
async function recordDecisionSubmission(
  ctx: SlackContext,
  submission: DecisionSubmission | undefined,
  who: Person,
  decision: 'approve' | 'decline',
  startAfter: Promise<void>,
): Promise<RecordedDecision | undefined> {
  if (!submission) {
    ctx.logger.warn({ user: who.user, decision }, 'decision modal submitted with metadata that is not ours');
    return undefined;
  }
  const decided = await ctx.agent.decideToolCall(
    {
      actionId: submission.actionId,
      fingerprint: submission.fingerprintPrefix,
      actor: actorOf(who),
      ...(submission.reason ? { reason: submission.reason } : {}),
      decision,
    },
    { startAfter },
  );
  ctx.logger.info({ actionId: submission.actionId, user: who.user, decision, outcome: decided.outcome }, 'decision modal submitted');
  return { actionId: submission.actionId, decision: decided };
}

/** Shows a recorded decision beside its card (the redraw, a refusal, the run's continuation). */
export async function showDecisionSubmission(ctx: SlackContext, who: Person, recorded: RecordedDecision | undefined): Promise<void> {
  if (!recorded) return;
  const { actionId, decision } = recorded;
  const card = await findCard(ctx.slackDb, actionId);
  if (!card) {
    // No card to answer beside (a request of a run nobody requested, decided from the inbox): the Home tab is told.
    ctx.logger.info({ actionId }, 'decision submitted for a request without a card');
    return showDecision(ctx, decision, { ...who, channel: who.user, answerAt: 'home' });
  }
  await showDecision(ctx, decision, { ...who, channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) }, card);
}

/** Tells the person, beside the card, that recording or showing their decision failed (with the log reference). */
function tellDecisionSubmissionFailure(ctx: SlackContext, actionId: number | undefined, user: string): (ref: string) => Promise<void> {
  return async (ref) => {
    const card = actionId !== undefined ? await findCard(ctx.slackDb, actionId) : undefined;
    if (card) await tellUser(ctx, { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}), user }, failureText(ref));
  };
}

/**
 * Why the clicker may not decide the request a genuine button names, as it stands, said before a
 * form opens (so nobody fills one in for a request they cannot decide), or undefined. The runtime
 * checks again on submit. `as` is what the form is for: Decline asks the decline rule, Approve
 * and Edit the approve rule (the refusal worded for Edit). `groupLookupMayRetry` lets a group that
 * could not be checked now through to the submission, which checks it again. Off the request's
 * card, the refusal names the request only to someone who may see it (refusalSeenBy).
 */
async function decisionRefusal(
  ctx: SlackContext,
  click: Click,
  button: GenuineButton,
  options: { as: 'approve' | 'decline' | 'edit'; groupLookupMayRetry?: boolean },
): Promise<string | undefined> {
  const row = button.row;
  const refusal = row ? await refusalOf(ctx, row, click, button.value.fingerprintPrefix, options) : 'I could not find that request; its run may have ended. Nothing was changed.';
  return refusal === undefined ? undefined : refusalSeenBy(ctx, click, row, refusal, onItsCard(click, button.card));
}

async function refusalOf(
  ctx: SlackContext,
  row: Request,
  who: Person,
  fingerprintPrefix: string,
  options: { as: 'approve' | 'decline' | 'edit'; groupLookupMayRetry?: boolean },
): Promise<string | undefined> {
  // The dry run of the decision itself (Agent.checkDecision); the reason, where one is asked, comes with the form.
  const check = await ctx.agent.checkDecision(row, actorOf(who), options.as, { fingerprint: fingerprintPrefix, reasonToCome: true });
  switch (check.outcome) {
    case 'allowed':
      return undefined;
    case 'not-found':
      return 'That button is not for an approval request. Nothing was changed.';
    case 'already-decided':
      return `This request was ${describeOutcome(row)}. Nothing was changed.`;
    case 'expired':
      return check.closed ? `This request was ${describeOutcome(row)}. Nothing was changed.` : 'This request has expired. Nothing was changed.';
    case 'fingerprint-mismatch':
      return 'This button does not match the pending request (its arguments differ from what was asked). Nothing was changed.';
    case 'not-editable':
      return 'The arguments of this request cannot be edited here. Nothing was changed.';
    case 'not-allowed': {
      if (options.groupLookupMayRetry === true && check.why === 'group-lookup-failed') return undefined;
      const message = options.as === 'approve' ? check.message : check.message.replace(/\bapprove\b/, options.as);
      return `${escapeMrkdwn(message)} Nothing was changed.`;
    }
    default:
      return unreachable(check, 'decision check');
  }
}

/**
 * The decline modal's submission, up to its recorded decision: the reason goes to the model, and
 * the metadata binds the decline to the request and the arguments the decliner saw.
 */
export function recordDeclineSubmission(ctx: SlackContext, view: SubmittedView, who: Person, startAfter: Promise<void>): Promise<RecordedDecision | undefined> {
  return recordDecisionSubmission(ctx, parseDeclineModal(view.private_metadata, view.state.values), who, 'decline', startAfter);
}


/** Tells the decliner, beside the card, that recording or showing the decline failed (with the log reference). */
export function tellDeclineFailure(ctx: SlackContext, view: SubmittedView, user: string): (ref: string) => Promise<void> {
  return tellDecisionSubmissionFailure(ctx, parseDeclineModal(view.private_metadata, view.state.values)?.actionId, user);
}

/**
 * Approve on a card whose policy wants a reason: checked as far as it can be (so nobody writes a
 * reason for a request they cannot approve), then the reason modal. The approval itself happens
 * on submit, checked again by the runtime, which refuses it without a reason.
 */
export async function openApproveReason(ctx: SlackContext, click: Click | undefined, action: ButtonAction): Promise<void> {
  const checked = await checkedBeforeModal(ctx, click, action, { as: 'approve', groupLookupMayRetry: true });
  if (checked) await openReasonModal(ctx, checked.click, checked.row);
}

/**
 * What every form opened from a card's button checks first: the click has a person, the button is
 * the very card's, and the clicker may decide the request as it stands (decisionRefusal). A
 * refusal is logged and told to the clicker; undefined then. Decline, Approve with a reason and
 * Edit open their forms only past it.
 */
export async function checkedBeforeModal(
  ctx: SlackContext,
  click: Click | undefined,
  action: ButtonAction,
  options: { as: 'approve' | 'decline' | 'edit'; groupLookupMayRetry?: boolean },
): Promise<CheckedClick | undefined> {
  if (!click) return void ctx.logger.warn({ form: options.as }, 'form click without user or channel');
  const button = await genuineButton(ctx, click, action);
  if (!button) {
    await tellUser(ctx, click, tamperedButton);
    return undefined;
  }
  const row = button.row;
  // decisionRefusal words a missing request too, and off its card says no more than an unseen one.
  const refusal = await decisionRefusal(ctx, click, button, options);
  if (refusal !== undefined || !row) {
    ctx.logger.info({ form: options.as, actionId: button.value.actionId, user: click.user }, 'refused before the form opened');
    await tellUser(ctx, click, refusal ?? 'I could not find that request; its run may have ended. Nothing was changed.');
    return undefined;
  }
  return { click, button, row };
}

/** The reason modal for this request, opened with the click's trigger. */
async function openReasonModal(ctx: SlackContext, click: Click, row: Request): Promise<void> {
  const call = describedCall(row.toolName, row.args, ctx.agent.viewRequest(row).description);
  try {
    if (!click.triggerId) throw new Error('no trigger_id');
    await ctx.client.views.open({
      trigger_id: click.triggerId,
      view: approveReasonModal({ actionId: row.id, fingerprint: row.fingerprint, toolName: row.toolName, title: call.title, risk: call.risk }),
    });
  } catch (error) {
    // Unlike a decline, an approval cannot go ahead without its reason: the clicker tries again.
    ctx.logger.warn({ err: error, actionId: row.id }, 'approve reason modal could not open');
    await tellUser(ctx, click, 'I could not open the form for your reason (the click may have expired). Nothing was changed; please click Approve again.');
  }
}

/** A blank reason is sent back to the form (Slack only checks that something was typed). */
export function approveReasonErrors(view: SubmittedView): Record<string, string> | undefined {
  const submission = parseApproveReasonModal(view.private_metadata, view.state.values);
  return submission && submission.reason === '' ? { reason: 'Please say why you approve this call.' } : undefined;
}

/** The reason modal's submission, up to its recorded approval (bound to the arguments seen). */
export function recordApproveReason(ctx: SlackContext, view: SubmittedView, who: Person, startAfter: Promise<void>): Promise<RecordedDecision | undefined> {
  return recordDecisionSubmission(ctx, parseApproveReasonModal(view.private_metadata, view.state.values), who, 'approve', startAfter);
}


/** Tells the approver, beside the card, that recording or showing the approval failed (with the log reference). */
export function tellApproveReasonFailure(ctx: SlackContext, view: SubmittedView, user: string): (ref: string) => Promise<void> {
  return tellDecisionSubmissionFailure(ctx, parseApproveReasonModal(view.private_metadata, view.state.values)?.actionId, user);
}
