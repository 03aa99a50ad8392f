import type { PendingAction } from '../../db/pending-action.js';
import { errorReference } from '../error-reference.js';
import type { SlackContext } from '../slack-context.js';
import type { CardRow } from '../store/cards.js';
import { loadCardState } from '../store/card-state.js';
import { renderCard } from './render-card.js';
import { blocksArg } from '../blocks-arg.js';

/** A request this process has just approved or declined, and where its card is. */
export interface DecidedCard {
  action: PendingAction;
  card: CardRow;
}

/**
 * Redraws a posted card from its pending action's current row (chat.update),
 * so the buttons disappear and the card says who decided. Safe to repeat.
 * The row is read here, not taken from the caller: with a quorum, a redraw
 * from an older row could overwrite a newer one. The one exception is
 * `decided`, a row this process has just moved to approved or declined: such a
 * row changes no further, so reading it again would only cost a round trip.
 * (Whether the call is then blocked at the gate comes later, with its own redraw.)
 * Returns where the card is (undefined when it has none), whether or not the
 * redraw went through.
 */
export async function updateCard(ctx: SlackContext, actionId: number, decided?: DecidedCard): Promise<CardRow | undefined> {
  const inFlight = ctx.cardsInFlight.get(actionId);
  if (inFlight) {
    inFlight.redrawWaiting = true;
    await inFlight.done;
  }
  const state = !inFlight && decided ? { ...decided, blocked: false } : await loadCardState(ctx.slackDb, actionId);
  if (!state?.card) {
    ctx.logger.debug({ actionId }, 'no card to update');
    return undefined;
  }
  const { card, action, blocked } = state;
  const rendered = renderCard(ctx.agent, action, { blocked });
  try {
    await ctx.client.chat.update({ channel: card.channel, ts: card.ts, text: rendered.text, blocks: blocksArg(rendered.blocks) });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId, ref: errorReference() }, 'card could not be updated');
  }
  return card;
}
