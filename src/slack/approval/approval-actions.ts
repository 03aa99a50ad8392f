import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, CALLBACK_IDS } from '../kit/action-ids.js';
import { openDecline, recordApproval, showApproval, openApproveReason, approveReasonErrors, recordApproveReason, tellApproveReasonFailure, recordDeclineSubmission, showDecisionSubmission, tellDeclineFailure } from './approval-flow.js';
import { tellClicker } from '../card/button-check.js';
import { showArguments } from './show-arguments.js';
import { type SlackContext, personOf, clickOf } from '../context.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';

/**
 * Approve decides at once, recorded before the click is acknowledged (see
 * recordThenAck); Decline first asks for an optional reason in a modal, and so does Approve
 * (a required one) where the policy says requireReason. Show arguments opens a read-only modal.
 */
export function registerApprovalActions(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.approve, async ({ ack, body, action }) => {
    await recordThenAck(ctx, ack, {
      name: 'approve',
      record: (startAfter) => recordApproval(ctx, clickOf(body), action, startAfter),
      show: (recorded) => showApproval(ctx, recorded),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
  // "Approve and allow for …": the same approve, which also asks to remember the approval.
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.approveRemember, async ({ ack, body, action }) => {
    await recordThenAck(ctx, ack, {
      name: 'approve and remember',
      record: (startAfter) => recordApproval(ctx, clickOf(body), action, startAfter, { remember: true }),
      show: (recorded) => showApproval(ctx, recorded),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.decline, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('decline', () => openDecline(ctx, clickOf(body), action), tellClicker(ctx, clickOf(body)));
  });
  // Where the policy wants a reason, Approve opens a form for it; the approval comes with its submission.
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.approveWithReason, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('approve-with-reason', () => openApproveReason(ctx, clickOf(body), action), tellClicker(ctx, clickOf(body)));
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.showArguments, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('show-arguments', () => showArguments(ctx, clickOf(body), action), tellClicker(ctx, clickOf(body)));
  });
}

/** The approve-reason modal's submission: a blank reason goes back to the form; else recorded, then acked, then shown. */
export function registerApproveReasonSubmit(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.view(CALLBACK_IDS.approveReasonModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    const errors = approveReasonErrors(view);
    if (errors) return void (await ack({ response_action: 'errors', errors }));
    await recordThenAck(ctx, () => ack(), {
      name: 'approve-reason-submit',
      record: (startAfter) => recordApproveReason(ctx, view, personOf(body), startAfter),
      show: (recorded) => showDecisionSubmission(ctx, personOf(body), recorded),
      onError: tellApproveReasonFailure(ctx, view, user),
    });
  });
}

/** The decline modal's submission: recorded, then the modal closes (ack), then the outcome is shown. */
export function registerDeclineModalSubmit(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.view(CALLBACK_IDS.declineModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    await recordThenAck(ctx, () => ack(), {
      name: 'decline-submit',
      record: (startAfter) => recordDeclineSubmission(ctx, view, personOf(body), startAfter),
      show: (recorded) => showDecisionSubmission(ctx, personOf(body), recorded),
      onError: tellDeclineFailure(ctx, view, user),
    });
  });
}
