import type { ButtonAction } from '@slack/bolt';
import type { PendingAction } from '../../db/rows.js';
import { approveReasonModal, parseApproveReasonModal } from './approve-reason-modal.js';
import type { SubmittedView } from '../kit/submitted-payloads.js';
import type { Click, Person, SlackContext } from '../context.js';
import { genuineButton } from '../card/genuine-button.js';
import { describedCall } from '../card/card-description.js';
import { tamperedButton } from '../card/clicked-card.js';
import { recordDecisionSubmission, showDecisionSubmission, tellDecisionSubmissionFailure, type RecordedDecision } from './decision-submission.js';
import { decisionRefusal } from './decision-refusal.js';
import { tellUser } from '../kit/tell-user.js';

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
  const refusal = await decisionRefusal(ctx, click, button, { as: 'approve', groupLookupMayRetry: true });
  if (refusal) {
    ctx.logger.info({ actionId: button.value.actionId, user: click.user }, 'approval refused before the reason modal');
    return tellUser(ctx, click, refusal);
  }
  await openReasonModal(ctx, click, row!);
}

/** The reason modal for this request, opened with the click's trigger. */
export async function openReasonModal(ctx: SlackContext, click: Click, row: PendingAction): Promise<void> {
  const call = describedCall(row.tool_name, row.args, ctx.agent.viewRequest(row).description);
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

/** A blank reason is sent back to the form (Slack only checks that something was typed). */
export function approveReasonErrors(view: SubmittedView): Record<string, string> | undefined {
  const submission = parseApproveReasonModal(view.private_metadata, view.state.values);
  return submission && submission.reason === '' ? { reason: 'Please say why you approve this call.' } : undefined;
}

/** The reason modal's submission, up to its recorded approval (bound to the arguments seen). */
export function recordApproveReason(ctx: SlackContext, view: SubmittedView, who: Person, startAfter: Promise<void>): Promise<RecordedDecision | undefined> {
  return recordDecisionSubmission(ctx, parseApproveReasonModal(view.private_metadata, view.state.values), who, 'approve', startAfter);
}

/** Shows a recorded approval beside its card (the redraw, a refusal, the run's continuation). */
export const showApproveReason = showDecisionSubmission;

/** Tells the approver, beside the card, that recording or showing the approval failed (with the log reference). */
export function tellApproveReasonFailure(ctx: SlackContext, view: SubmittedView, user: string): (ref: string) => Promise<void> {
  return tellDecisionSubmissionFailure(ctx, parseApproveReasonModal(view.private_metadata, view.state.values)?.actionId, user);
}
