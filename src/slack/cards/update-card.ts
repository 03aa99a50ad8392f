import { errorReference } from '../error-reference.js';
import type { SlackContext } from '../slack-context.js';
import type { CardRow } from '../store/cards.js';
import { loadCardState } from '../store/card-state.js';
import { renderCard } from './render-card.js';

/**
 * Redraws a posted card from its pending action's current row (chat.update),
 * so the buttons disappear and the card says who decided. Safe to repeat.
 * The row is read here, not taken from the caller: with a quorum, a redraw
 * from an older row could overwrite a newer one. Returns where the card is
 * (undefined when it has none), whether or not the redraw went through.
 */
export async function updateCard(ctx: SlackContext, actionId: number): Promise<CardRow | undefined> {
  const inFlight = ctx.cardsInFlight.get(actionId);
  if (inFlight) {
    inFlight.redrawWaiting = true;
    await inFlight.done;
  }
  const state = await loadCardState(ctx.slackDb, actionId);
  if (!state?.card) {
    ctx.logger.debug({ actionId }, 'no card to update');
    return undefined;
  }
  const { card, action, blocked } = state;
  const rendered = renderCard(ctx.agent, action, { blocked });
  try {
    await ctx.client.chat.update({ channel: card.channel, ts: card.ts, text: rendered.text, blocks: rendered.blocks });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId, ref: errorReference() }, 'card could not be updated');
  }
  return card;
}
