import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, CALLBACK_IDS } from '../kit/action-ids.js';
import { batchDeclineMessage, batchDeclineReason } from './batch-decline-modal.js';
import { openDeclineAll, recordBatchDecision, showBatchDecision, type BatchDeps } from './batch-click.js';
import { tellClicker } from '../card/clicked-card.js';
import { teamOfClicker, type Click, type SlackContext } from '../context.js';
import { clickOf } from '../kit/click-of.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';

/**
 * A batch card's buttons, as a single card's: Approve all decides, recorded before the click is
 * acknowledged (within RECORD_BEFORE_ACK_MS; a long batch is acknowledged first); Decline all
 * first asks for an optional reason in a modal, whose submission decides.
 */
export function registerBatchActions(routes: InteractionRoutes, ctx: SlackContext, deps: BatchDeps): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.batchApproveAll, async ({ ack, body, action }) => {
    await recordThenAck(ctx, ack, {
      name: 'approve all',
      record: (startAfter) => recordBatchDecision(ctx, clickOf(body), { value: action.value, blockId: action.block_id }, 'approve', startAfter),
      show: (recorded) => showBatchDecision(ctx, recorded, deps),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.batchDeclineAll, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('decline all', () => openDeclineAll(ctx, clickOf(body), { value: action.value, blockId: action.block_id }, deps), tellClicker(ctx, clickOf(body)));
  });
  routes.view(CALLBACK_IDS.batchDeclineModal, async ({ ack, body, view }) => {
    // The submission stands for the click on the batch message its metadata names (checked again there).
    const message = batchDeclineMessage(view.private_metadata);
    const click: Click | undefined = message ? { user: body.user.id, teamId: teamOfClicker(body), channel: message.channel, messageTs: message.ts } : undefined;
    await recordThenAck(ctx, () => ack(), {
      name: 'decline all submit',
      record: (startAfter) => recordBatchDecision(ctx, click, { value: view.private_metadata }, 'decline', startAfter, batchDeclineReason(view.state.values)),
      show: (recorded) => showBatchDecision(ctx, recorded, deps),
      onError: tellClicker(ctx, click),
    });
  });
}
