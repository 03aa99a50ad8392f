import type { BlockAction } from '@slack/bolt';
import { z } from 'zod';
import { parseButtonValue } from './kit/button-value.js';
import { type SlackContext, clickOf } from './context.js';
import { parseBatchButtonValue } from './batch/batch-click.js';
import { tellUser } from './kit/tell-user.js';
import { findCard } from './card/cards.js';
import type { InteractionFallbacks } from './kit/interaction-routes.js';

/** What a click or submission that could not be read is told. */
const MALFORMED_CLICK = 'That click came with values I cannot read, so nothing was changed.';
const MALFORMED_SUBMISSION = 'That form came back with values I cannot read, so nothing was changed.';

/** Fields that locate a reply; each one that is not a string is left out rather than failing the rest. */
const where = z.string().min(1).max(255).optional().catch(undefined);
const replyPlace = z.looseObject({
  user: z.looseObject({ id: z.string().min(1).max(255) }),
  channel: z.looseObject({ id: where }).nullable().optional().catch(undefined),
  container: z.looseObject({ type: where, channel_id: where, message_ts: where, thread_ts: where }).optional().catch(undefined),
  view: z.looseObject({ private_metadata: z.string().max(3000).optional().catch(undefined) }).optional().catch(undefined),
});

/**
 * Interactions no listener owns (an old card's buttons, a forged payload) and payloads whose
 * values do not parse (submitted-payloads.ts) are acknowledged at once, so Slack shows no error
 * and the request does not hang, and the person is told nothing happened: beside the card
 * clicked, on their Home tab for a click there, beside the card a modal was opened for.
 */
export function unknownInteractions(ctx: SlackContext): InteractionFallbacks {
  return {
    async unknownAction({ ack, body, action }) {
      await ack();
      ctx.logger.warn({ actionId: (action as { action_id?: string } | undefined)?.action_id, type: body.type }, 'unknown interaction ignored');
      if (body.type !== 'block_actions') return;
      const click = clickOf(body as BlockAction);
      if (click) ctx.tasks.run('unknown-action', () => tellUser(ctx, click, 'That button is not one I know (it may be from an old version of me). Nothing was changed.'));
    },
    async unknownView({ ack, view }) {
      await ack();
      ctx.logger.warn({ callbackId: view.callback_id }, 'unknown view submission ignored');
    },
    async malformedAction({ ack, body }, issues) {
      await ack();
      const place = replyPlace.safeParse(body);
      ctx.logger.warn({ issues, user: place.data?.user.id }, 'interaction refused: its values do not parse');
      if (!place.success) return;
      const { user, channel, container } = place.data;
      const at = channel?.id ?? container?.channel_id;
      const click: Parameters<typeof tellUser>[1] =
        container?.type === 'view' || !at
          ? { user: user.id, channel: user.id, answerAt: 'home' }
          : { user: user.id, channel: at, ...(container?.thread_ts ? { threadTs: container.thread_ts } : {}) };
      ctx.tasks.run('malformed-action', () => tellUser(ctx, click, MALFORMED_CLICK));
    },
    async malformedView({ ack, body }, issues) {
      await ack();
      const place = replyPlace.safeParse(body);
      ctx.logger.warn({ issues, user: place.data?.user.id }, 'view submission refused: its values do not parse');
      if (!place.success) return;
      const user = place.data.user.id;
      const metadata = place.data.view?.private_metadata;
      // A decision modal names its request ({a, f}); Decline all names its calls ({m: [[a, f], …]}).
      const actionId = parseButtonValue(metadata)?.actionId ?? parseBatchButtonValue(metadata)?.[0]?.actionId;
      if (actionId === undefined) return;
      ctx.tasks.run('malformed-view', async () => {
        const card = await findCard(ctx.slackDb, actionId);
        if (card) await tellUser(ctx, { user, channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) }, MALFORMED_SUBMISSION);
      });
    },
  };
}
