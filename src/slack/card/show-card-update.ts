import type { Request } from '../../agent/request.js';
import { errorReference } from '../kit/error-reference.js';
import type { DrawnMark, SlackContext, SlackDb } from '../context.js';
import { type CardRow, loadCardState, type CardState, cardStateKey, cardStateKeySql, cardsLockedInOrder } from './cards.js';
import { renderCard } from './render-card.js';
import { cardViewOf } from './lifecycle.js';
import { blocksAsJson } from '../transport/slack-web-client.js';
import { adoptCard } from './card-repairs.js';
import { sql } from 'kysely';
import { oneOrAny } from '../../db/cached-statement.js';

/** A request this process has just approved or declined, and where its card is. */
interface DecidedCard {
  action: Request;
  card: CardRow;
  /** Where to leave the drawn mark for the caller to write with its run's last statement. */
  marks: DrawnMark[];
}

/** How often a redraw draws again because the request moved on while it was being drawn. */
const MAX_DRAWS = 3;

/**
 * Redraws a posted card from its pending action's current row (chat.update),
 * so the buttons disappear and the card says who decided. Safe to repeat, and
 * it converges on the request's current state:
 * - redraws of one card in this process run one after the other, each drawing
 *   the row as it is when its turn comes (a retried "1 of 2" can no longer land
 *   after the "approved" that followed it);
 * - after each draw the key it drew is recorded (slack_cards.drawn) and
 *   compared with the request's key now; a request that moved on meanwhile
 *   (decided on another instance, say) is drawn again;
 * - a draw that fails leaves the old key recorded, and the sweep redraws it;
 * - a request with no card row may have a card whose location could not be
 *   stored: it is looked for in the run's thread and adopted (adoptCard).
 * `decided` is a row this process has just moved to approved or declined: such
 * a row changes no further, so it is drawn without reading it again and its
 * mark is left to the caller (see DrawnMark), unless another redraw of the card
 * is under way. Returns where the card is (undefined when it has none), whether
 * or not the redraw went through.
 */
export async function showCardUpdate(ctx: SlackContext, actionId: number, decided?: DecidedCard): Promise<CardRow | undefined> {
  return ctx.cards.redrawInTurn(actionId, (waited) => redraw(ctx, actionId, waited ? undefined : decided));
}

async function redraw(ctx: SlackContext, actionId: number, decided: DecidedCard | undefined): Promise<CardRow | undefined> {
  const waitedForPost = await ctx.cards.redrawAfterPost(actionId);
  const fast = !waitedForPost && decided ? decided : undefined;
  let state: CardState | undefined = fast ? { action: fast.action, card: fast.card, blocked: false } : await loadCardState(ctx.slackDb, actionId);
  // Posted, but where it went was never stored: the card is found by its metadata and drawn as any other.
  if (state && !state.card && (await adoptCard(ctx, state.action)) === 'adopted') state = await loadCardState(ctx.slackDb, actionId);
  if (!state?.card) {
    ctx.logger.debug({ actionId }, 'no card to update');
    return undefined;
  }
  const card = state.card;
  // A card shared by the parallel calls of one step is drawn from all of them.
  if (card.batch?.length) return ctx.batches.redraw(ctx, card.batch, state.action.runId).then(() => card);
  for (let draws = 1; state?.card; draws++) {
    const key = cardStateKey(state.action, state.blocked);
    const rendered = renderCard(ctx.agent, state.action, { blocked: state.blocked, ...(state.blockedReason ? { blockedReason: state.blockedReason } : {}), ...(await cardViewOf(ctx, state.action)) });
    try {
      const blocks = blocksAsJson(rendered.blocks);
      await ctx.client.chat.update({ channel: state.card.channel, ts: state.card.ts, text: rendered.text, blocks });
      // Copies show the same request; one that cannot be redrawn leaves the old key for the sweep, which redraws them all.
      for (const copy of state.card.copies ?? []) await ctx.client.chat.update({ channel: copy.channel, ts: copy.ts, text: rendered.text, blocks });
    } catch (error) {
      // The old key stays recorded: the sweep draws the card again.
      ctx.logger.warn({ err: error, actionId, ref: errorReference() }, 'card could not be updated');
      return card;
    }
    if (fast && draws === 1) {
      fast.marks.push({ actionId, key });
      return card;
    }
    const current = await markCardDrawn(ctx.slackDb, actionId, key);
    if (current === undefined || current === key) return card;
    if (draws >= MAX_DRAWS) {
      ctx.logger.warn({ actionId, drawn: key, current }, 'card kept changing while being drawn; the sweep draws it again');
      return card;
    }
    state = await loadCardState(ctx.slackDb, actionId);
  }
  return card;
}

/**
 * Records that a card now shows `key` (its repair, if one was claimed, is done)
 * and returns the key its request has now: when they differ, the request moved
 * on while the card was being drawn (another instance decided, a redraw landed
 * out of order), and the card must be drawn again. Undefined when the card or
 * its request is not on record.
 */
async function markCardDrawn(db: SlackDb, actionId: number, key: string): Promise<string | undefined> {
  const result = await sql<{ current: string }>`
    WITH upd AS (
      UPDATE slack_cards SET drawn = ${key}, drawn_at = now(), repair_claimed_at = NULL
      WHERE action_id = ${actionId}
      RETURNING action_id
    )
    SELECT ${cardStateKeySql('p')} AS current FROM pending_actions p WHERE p.id = ${actionId} AND EXISTS (SELECT 1 FROM upd)
  `.execute(db);
  return result.rows[0]?.current;
}

/**
 * Records the drawn marks on their own, for a stream that ended without its run's outcome (it
 * paused again) or a decision that carries no run on; markRunShown rides them on its statement.
 */
export async function markCardsDrawn(db: SlackDb, drawn: DrawnMark[]): Promise<void> {
  if (drawn.length === 0) return;
  const marks = drawnMarks(drawn);
  await drawnUpdate(marks, drawnCards(marks)).execute(db);
}

/** Drawn marks as drawnUpdate takes them: the cards' request ids, and each card's key under its id. */
export interface DrawnMarks extends Record<string, unknown> {
  /** One id alone when the marks are for one card (see drawnUpdate). */
  cardIds: number | number[];
  cardKeys: string;
}

/** One mark per card, its latest (see DrawnMark). */
export function drawnMarks(drawn: DrawnMark[]): DrawnMarks {
  const keys = new Map(drawn.map((d) => [d.actionId, d.key]));
  const ids = [...keys.keys()];
  return { cardIds: ids.length === 1 ? ids[0]! : ids, cardKeys: JSON.stringify(Object.fromEntries(keys)) };
}

/** Whether drawnUpdate is for one card or several, as drawnMarks made them. */
export const drawnCards = (marks: DrawnMarks): 'card' | 'cards' => (Array.isArray(marks.cardIds) ? 'cards' : 'card');

/**
 * The statement that records drawn marks (parameters only, so a CachedStatement can compile a
 * statement that carries it once). Several cards are found by their ids as an array: the planner
 * then reads them through the primary key once the table holds a few thousand cards, where a
 * join with the marks as a table (which it takes for 100 rows) read every card ever posted up to
 * tens of thousands of them. One card, the usual case, is found alone, so the statement keeps its
 * plan (oneOrAny). Several cards are locked in the order of their ids first (cardsLockedInOrder):
 * two instances may mark the same cards, one having drawn a card on a click, the other on the sweep.
 */
export function drawnUpdate(marks: DrawnMarks, cards: 'card' | 'cards') {
  const set = sql`UPDATE slack_cards c SET drawn = ${marks.cardKeys}::jsonb->>(c.action_id::text), drawn_at = now(), repair_claimed_at = NULL`;
  if (cards === 'card') return sql`${set} WHERE ${oneOrAny('c.action_id', marks.cardIds, false, 'integer[]')}`;
  return sql`${set} FROM ${cardsLockedInOrder(oneOrAny('l.action_id', marks.cardIds, true, 'integer[]'))} WHERE c.action_id = l.action_id`;
}
