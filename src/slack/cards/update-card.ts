import { findAction } from '../../approvals/pending-actions.js';
import { errorReference } from '../error-reference.js';
import type { SlackContext } from '../slack-context.js';
import { findCard } from '../store/cards.js';
import { wasBlocked } from './card-facts.js';
import { renderCard } from './render-card.js';

/**
 * Redraws a posted card from its pending action's current row (chat.update),
 * so the buttons disappear and the card says who decided. Safe to repeat.
 */
export async function updateCard(ctx: SlackContext, actionId: number): Promise<boolean> {
  await ctx.cardsInFlight.get(actionId);
  const card = await findCard(ctx.slackDb, actionId);
  if (!card) {
    ctx.logger.debug({ actionId }, 'no card to update');
    return false;
  }
  const action = await findAction(ctx.db, actionId);
  if (!action) return false;
  const rendered = renderCard(ctx.agent, action, { blocked: await wasBlocked(ctx.db, action) });
  try {
    await ctx.client.chat.update({ channel: card.channel, ts: card.ts, text: rendered.text, blocks: rendered.blocks });
    return true;
  } catch (error) {
    ctx.logger.warn({ err: error, actionId, ref: errorReference() }, 'card could not be updated');
    return false;
  }
}
