import { CALLBACK_IDS } from '../kit/action-ids.js';
import { recordDeclineSubmission, showDeclineSubmission, tellDeclineFailure } from './decline-submission.js';
import { personOf, type SlackContext } from '../context.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';

/** The decline modal's submission: recorded, then the modal closes (ack), then the outcome is shown. */
export function registerDeclineModalSubmit(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.view(CALLBACK_IDS.declineModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    await recordThenAck(ctx, () => ack(), {
      name: 'decline-submit',
      record: (startAfter) => recordDeclineSubmission(ctx, view, personOf(body), startAfter),
      show: (recorded) => showDeclineSubmission(ctx, personOf(body), recorded),
      onError: tellDeclineFailure(ctx, view, user),
    });
  });
}
