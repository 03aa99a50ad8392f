import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS } from '../blocks/action-ids.js';
import { recordBatchDecision, showBatchDecision } from '../flows/batch-click.js';
import { tellClicker } from '../flows/clicked-card.js';
import type { SlackContext } from '../slack-context.js';
import { clickOf } from './click-of.js';
import type { InteractionRoutes } from './interaction-routes.js';
import { recordThenAck } from './record-then-ack.js';

/**
 * Approve all and Decline all on a batch card: the decisions are recorded before the click is
 * acknowledged (within RECORD_BEFORE_ACK_MS; a long batch is acknowledged first), as Approve is.
 * Decline all declines without a reason (its button asks for confirmation first).
 */
export function registerBatchActions(routes: InteractionRoutes, ctx: SlackContext): void {
  for (const [actionId, decision] of [
    [ACTION_IDS.batchApproveAll, 'approve'],
    [ACTION_IDS.batchDeclineAll, 'decline'],
  ] as const) {
    routes.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action }) => {
      await recordThenAck(ctx, ack, {
        name: `${decision} all`,
        record: (startAfter) => recordBatchDecision(ctx, clickOf(body), action, decision, startAfter),
        show: (recorded) => showBatchDecision(ctx, recorded),
        onError: tellClicker(ctx, clickOf(body)),
      });
    });
  }
}
