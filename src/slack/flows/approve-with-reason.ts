import type { ButtonAction } from '@slack/bolt';
import type { Decision } from '../../agent/types.js';
import type { PendingAction } from '../../db/rows.js';
import { approveReasonModal, parseApproveReasonModal } from '../blocks/approve-reason-modal.js';
import type { ViewStateValues } from '../blocks/card-types.js';
import { escapeMrkdwn } from '../mrkdwn/escape-mrkdwn.js';
import type { Click, SlackContext } from '../slack-context.js';
import { findCard } from '../store/cards.js';
import { genuineButton } from './genuine-button.js';
import { callOnCard } from './card-description.js';
import { tamperedButton } from './clicked-card.js';
import { failureText } from './failure-text.js';
import { handleDecision } from './handle-decision.js';
import { describeOutcome } from './refusal-text.js';
import { tellUser } from './tell-user.js';

type ReasonView = { private_metadata: string; state: { values: ViewStateValues } };

/**
 * Approve on a card whose policy wants a reason: checked as far as it can be (so nobody writes a
 * reason for a request they cannot approve), then the reason modal. The approval itself happens
 * on submit, checked again by the runtime, which refuses it without a reason.
 */
export async function openApproveReason(ctx: SlackContext, click: Click | undefined, action: ButtonAction): Promise<void> {
  if (!click) return void ctx.logger.warn('approve-with-reason click without user or channel');
  const button = await genuineButton(ctx, click, action);
  if (!button) return tellUser(ctx, click, tamperedButton);
  const row = button.row;
  const refusal = row ? await approveRefusal(ctx, row, click.user, button.value.fingerprintPrefix) : 'I could not find that request; its run may have ended. Nothing was changed.';
  if (refusal) {
    ctx.logger.info({ actionId: button.value.actionId, user: click.user }, 'approval refused before the reason modal');
    return tellUser(ctx, click, refusal);
  }
  await openReasonModal(ctx, click, row!);
}

/** The reason modal for this request, opened with the click's trigger. */
export async function openReasonModal(ctx: SlackContext, click: Click, row: PendingAction): Promise<void> {
  const call = callOnCard(ctx.agent, row);
  try {
    if (!click.triggerId) throw new Error('no trigger_id');
    await ctx.client.views.open({
      trigger_id: click.triggerId,
      view: approveReasonModal({ actionId: row.id, fingerprint: row.fingerprint ?? '', toolName: row.tool_name, title: call.title, risk: call.risk }),
    });
  } catch (error) {
    // Unlike a decline, an approval cannot go ahead without its reason: the clicker tries again.
    ctx.logger.warn({ err: error, actionId: row.id }, 'approve reason modal could not open');
    await tellUser(ctx, click, 'I could not open the form for your reason (the click may have expired). Nothing was changed; please click Approve again.');
  }
}

async function approveRefusal(ctx: SlackContext, row: PendingAction, user: string, fingerprintPrefix: string): Promise<string | undefined> {
  if (row.kind !== 'approval') return 'That button is not for an approval request. Nothing was changed.';
  if (row.status !== 'pending') return `This request was ${describeOutcome(row)}. Nothing was changed.`;
  if (!(row.fingerprint ?? '').startsWith(fingerprintPrefix)) {
    return 'This button does not match the pending request (its arguments differ from what was asked). Nothing was changed.';
  }
  if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now()) return 'This request has expired. Nothing was changed.';
  const verdict = await ctx.agent.mayDecide(row, { userId: user }, 'approve');
  // A group that could not be checked now may be on submit, which checks again.
  if (verdict.allowed || verdict.why === 'group-lookup-failed') return undefined;
  return `${escapeMrkdwn(verdict.message)} Nothing was changed.`;
}

/** A blank reason is sent back to the form (Slack only checks that something was typed). */
export function approveReasonErrors(view: ReasonView): Record<string, string> | undefined {
  const submission = parseApproveReasonModal(view.private_metadata, view.state.values);
  return submission && submission.reason === '' ? { reason: 'Please say why you approve this call.' } : undefined;
}

/** The reason modal's submission, up to its recorded approval (bound to the arguments seen). */
export async function recordApproveReason(
  ctx: SlackContext,
  view: ReasonView,
  user: string,
  startAfter: Promise<void>,
): Promise<{ actionId: number; decision: Decision } | undefined> {
  const submission = parseApproveReasonModal(view.private_metadata, view.state.values);
  if (!submission) {
    ctx.logger.warn({ user }, 'approve reason modal submitted with metadata that is not ours');
    return undefined;
  }
  const decision = await ctx.agent.decideToolCall(
    {
      actionId: submission.actionId,
      fingerprint: submission.fingerprintPrefix,
      actor: { userId: user },
      ...(submission.reason ? { reason: submission.reason } : {}),
      decision: 'approve',
    },
    { startAfter },
  );
  ctx.logger.info({ actionId: submission.actionId, user, outcome: decision.outcome }, 'approval with a reason submitted');
  return { actionId: submission.actionId, decision };
}

/** Shows a recorded approval beside its card (the redraw, a refusal, the run's continuation). */
export async function showApproveReason(ctx: SlackContext, user: string, recorded: { actionId: number; decision: Decision } | undefined): Promise<void> {
  if (!recorded) return;
  const { actionId, decision } = recorded;
  const card = await findCard(ctx.slackDb, actionId);
  if (!card) {
    ctx.logger.warn({ actionId }, 'approval with a reason submitted for a request without a card');
    if ('stream' in decision && decision.stream) await decision.stream.result;
    return;
  }
  await handleDecision(ctx, decision, { user, channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) }, card);
}

/** Tells the approver, beside the card, that recording or showing the approval failed (with the log reference). */
export function tellApproveReasonFailure(ctx: SlackContext, view: ReasonView, user: string): (ref: string) => Promise<void> {
  return async (ref) => {
    const actionId = parseApproveReasonModal(view.private_metadata, view.state.values)?.actionId;
    const card = actionId !== undefined ? await findCard(ctx.slackDb, actionId) : undefined;
    if (card) await tellUser(ctx, { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}), user }, failureText(ref));
  };
}
