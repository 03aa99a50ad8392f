import { CALLBACK_IDS } from '../kit/action-ids.js';
import { approveReasonErrors, recordApproveReason, showApproveReason, tellApproveReasonFailure } from './approve-with-reason.js';
import { personOf, type SlackContext } from '../context.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';

/** The approve-reason modal's submission: a blank reason goes back to the form; else recorded, then acked, then shown. */
export function registerApproveReasonSubmit(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.view(CALLBACK_IDS.approveReasonModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    const errors = approveReasonErrors(view);
    if (errors) return void (await ack({ response_action: 'errors', errors }));
    await recordThenAck(ctx, () => ack(), {
      name: 'approve-reason-submit',
      record: (startAfter) => recordApproveReason(ctx, view, personOf(body), startAfter),
      show: (recorded) => showApproveReason(ctx, personOf(body), recorded),
      onError: tellApproveReasonFailure(ctx, view, user),
    });
  });
}
