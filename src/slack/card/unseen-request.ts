import type { Request } from '../../agent/request.js';
import { actorOf, type Click, type Person, type SlackContext } from '../context.js';
import type { CardRow } from './cards.js';

/**
 * What anyone is told about a request they may not see, and about an id that names no request:
 * the same words, so that neither can be told from the other.
 */
export const UNSEEN_REQUEST = 'I could not find that request, or it is not one you may see. Nothing was changed.';

/**
 * Whether a click was made on the request's own card (not the inbox, not a button naming a
 * request that has no card): there the clicker sees what the card shows anyway.
 */
export function onItsCard(click: Pick<Click, 'answerAt'>, card: CardRow | undefined): boolean {
  return card !== undefined && click.answerAt === undefined;
}

/**
 * A refusal as this person may hear it: on the request's own card, as it is; anywhere else only
 * someone who may see the request (Agent.maySee) is told about it (who decided, its status, its
 * tool), and everyone else gets UNSEEN_REQUEST.
 */
export async function refusalSeenBy(ctx: SlackContext, who: Person, row: Request | undefined, text: string, onCard: boolean): Promise<string> {
  if (onCard) return text;
  if (!row) return UNSEEN_REQUEST;
  try {
    return (await ctx.agent.maySee(row, actorOf(who))) ? text : UNSEEN_REQUEST;
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: row.id, user: who.user }, 'who may see a request could not be checked; the refusal says nothing of it');
    return UNSEEN_REQUEST;
  }
}
