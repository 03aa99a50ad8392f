import { failureText } from './failure-text.js';
import type { Click, SlackContext } from '../slack-context.js';
import { tellUser } from './tell-user.js';
import type { CardRow } from '../store/cards.js';
import { loadCardState, type CardState } from '../store/card-state.js';

/**
 * A button's value names the request it decides; a value copied from another
 * card (or made up) names a request that card is not. When we know where the
 * request's card is, the click must have come from that very message. Reads
 * the request with its card: false when the click is not from the request's
 * card, else the request as read (undefined when there is no such request),
 * which the handler starts from instead of reading it again.
 */
export async function clickedCard(ctx: SlackContext, click: Click, actionId: number): Promise<{ state: CardState | undefined } | false> {
  const state = await loadCardState(ctx.slackDb, actionId);
  return cameFromCard(click, state?.card) ? { state } : false;
}

function cameFromCard(click: Click, card: CardRow | undefined): boolean {
  if (!card) return true;
  // A copy routed to an approver is the request's card as much as the one in the thread.
  return [card, ...(card.copies ?? [])].some((c) => c.channel === click.channel && (click.messageTs === undefined || c.ts === click.messageTs));
}

export const tamperedButton = 'This button does not belong to a request I know, so nothing was changed.';

/** For BackgroundTasks: a failed click handler tells the clicker, with the log reference. */
export function tellClicker(ctx: SlackContext, click: Click | undefined): (ref: string) => Promise<void> {
  return async (ref) => {
    if (click) await tellUser(ctx, click, failureText(ref));
  };
}
