import { CALLBACK_IDS } from '../blocks/action-ids.js';
import { parseDeclineModal } from '../blocks/decline-modal.js';
import { handleDecision } from '../handle-decision.js';
import type { SlackContext } from '../slack-context.js';
import { failureText } from '../failure-text.js';
import { findCard } from '../store/cards.js';
import { tellUser } from '../tell-user.js';
import type { InteractionRoutes } from './interaction-routes.js';
import { recordThenAck } from './record-then-ack.js';

/**
 * The decline modal's submission: the decline is recorded with the reason
 * (which the model receives), then the modal closes (ack), then the card and
 * the run's continuation are shown. The metadata binds it to the request and
 * arguments the decliner saw.
 */
export function registerDeclineModalSubmit(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.view(CALLBACK_IDS.declineModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    await recordThenAck(ctx, () => ack(), {
      name: 'decline-submit',
      record: async (acked) => {
        const submission = parseDeclineModal(view.private_metadata, view.state.values);
        if (!submission) {
          ctx.logger.warn({ user }, 'decline modal submitted with metadata that is not ours');
          return undefined;
        }
        const decision = await ctx.agent.decideToolCall(
          {
                  actionId: submission.actionId,
            fingerprint: submission.fingerprintPrefix,
            actor: { userId: user },
            ...(submission.reason ? { reason: submission.reason } : {}),
            decision: 'decline',
          },
          { startAfter: acked },
        );
        ctx.logger.info({ actionId: submission.actionId, user, outcome: decision.outcome }, 'decline submitted');
        return { actionId: submission.actionId, decision };
      },
      show: async (recorded) => {
        if (!recorded) return;
        const { actionId, decision } = recorded;
        const card = await findCard(ctx.slackDb, actionId);
        if (!card) {
          // No card to answer beside (a forged submission, most likely): the decision still stands or was refused.
          ctx.logger.warn({ actionId }, 'decline submitted for a request without a card');
          if ('stream' in decision && decision.stream) await decision.stream.result;
          return;
        }
        await handleDecision(ctx, decision, { user, channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) }, card);
      },
      onError: async (ref) => {
        const actionId = parseDeclineModal(view.private_metadata, view.state.values)?.actionId;
        const card = actionId !== undefined ? await findCard(ctx.slackDb, actionId) : undefined;
        if (card) await tellUser(ctx, { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}), user }, failureText(ref));
      },
    });
  });
}
