import { sql } from 'kysely';
import { renderBatchCard } from './batch-card.js';
import type { SlackContext } from '../context.js';
import { blocksAsJson } from '../transport/slack-web-client.js';
import { errorReference } from '../kit/error-reference.js';
import type { SlackDb } from '../tables.js';
import { type CardRow, cardStateKeySql, cardStateKey, loadCardStates, sameBatch, type CardState } from '../card/cards.js';

/** How often a redraw draws again because a member moved on while the batch was being drawn. */
const MAX_DRAWS = 3;

/**
 * Redraws every message of the batch `members` (a card row's `batch`) from its members' current rows. A click
 * on any member (or Approve all, the inbox, the sweep) lands here through showCardUpdate, so the
 * whole batch shows each call's state and what the run still waits for. Redraws of one batch in
 * this process (of run `runId`: the batch's calls are one step of it) run one after the other,
 * each drawing the rows as they are when its turn comes, members included: an edit since the
 * caller read `members` put its new request in the edited one's place. After a draw the members'
 * keys are recorded and compared with their requests' keys, and a batch that moved on meanwhile
 * (decided on another instance) is drawn again, as showCardUpdate does for a card.
 */
export async function redrawBatch(ctx: SlackContext, members: readonly number[], runId: string): Promise<void> {
  if (members.length === 0) return;
  await ctx.cards.batchRedrawInTurn(runId, () => redraw(ctx, members));
}

async function redraw(ctx: SlackContext, members: readonly number[]): Promise<void> {
  let batch = members;
  for (let draws = 1; ; draws++) {
    let states = await loadCardStates(ctx.slackDb, batch);
    // Every row of the batch's calls holds its membership as it is now (carryCard), the edited ones' too.
    const now = states.find((s) => s.card?.batch)?.card!.batch;
    if (now && !sameBatch(now, batch)) {
      batch = now;
      states = await loadCardStates(ctx.slackDb, batch);
    }
    // Members whose card is elsewhere (posted on its own after the batch's post failed) are not on it.
    const parts = messagesOf(states.filter((s) => s.card?.batch));
    if (parts.length === 0) return;
    // Every member already shows its state (another member's redraw, or the sweep claiming each member, got there first).
    if (draws === 1 && parts.flat().every((s) => s.card!.drawn === cardStateKey(s.action, s.blocked))) return;
    const rendered = renderBatchCard(ctx.agent, parts);
    try {
      for (const [i, part] of parts.entries()) {
        const where = part[0]!.card!;
        await ctx.client.chat.update({ channel: where.channel, ts: where.ts, text: rendered[i]!.text, blocks: blocksAsJson(rendered[i]!.blocks) });
      }
    } catch (error) {
      // The old keys stay recorded: the sweep draws the batch again.
      ctx.logger.warn({ err: error, batch, ref: errorReference() }, 'batch card could not be updated');
      return;
    }
    const current = await markBatchDrawn(
      ctx.slackDb,
      parts.flat().map((s) => ({ actionId: s.action.id, key: cardStateKey(s.action, s.blocked) })),
    );
    if (current) return;
    if (draws >= MAX_DRAWS) {
      ctx.logger.warn({ batch }, 'batch kept changing while being drawn; the sweep draws it again');
      return;
    }
  }
}

/** Members grouped by the message that shows them, in the batch's order. */
function messagesOf(states: CardState[]): CardState[][] {
  const byTs = new Map<string, CardState[]>();
  for (const s of states) {
    const key = `${s.card!.channel}\u0000${s.card!.ts}`;
    const part = byTs.get(key);
    if (part) part.push(s);
    else byTs.set(key, [s]);
  }
  return [...byTs.values()];
}

/**
 * Stores where the members of one part of a batch card went, in one statement, and says whether
 * any of them is no longer pending (decided on another instance between the post and this write,
 * when it could not find the card to redraw); the caller then redraws the batch. The shared lock
 * on the requests makes the two meet, as saveCard's does for a single card.
 */
export async function saveBatchCards(db: SlackDb, cards: ReadonlyArray<CardRow & { batch: number[] }>): Promise<{ decidedMeanwhile: boolean }> {
  if (cards.length === 0) return { decidedMeanwhile: false };
  const values = sql.join(
    cards.map(
      (c) => sql`(${c.action_id}::integer, ${c.channel}, ${c.ts}, ${c.thread_ts}, ${c.kind}, ${c.drawn}, ${JSON.stringify(c.batch)}::jsonb)`,
    ),
  );
  const ids = cards.map((c) => c.action_id);
  const result = await sql<{ status: string }>`
    WITH saved AS (
      INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind, drawn, batch)
      VALUES ${values}
      ON CONFLICT (action_id) DO UPDATE
        SET channel = EXCLUDED.channel, ts = EXCLUDED.ts, thread_ts = EXCLUDED.thread_ts, kind = EXCLUDED.kind,
            drawn = EXCLUDED.drawn, batch = EXCLUDED.batch, drawn_at = now(), settled = false, repair_claimed_at = NULL
      RETURNING action_id
    )
    SELECT p.status FROM pending_actions p
    WHERE p.id = ANY(${sql.val(ids)}::integer[]) AND p.id IN (SELECT action_id FROM saved)
    FOR SHARE OF p
  `.execute(db);
  return { decidedMeanwhile: result.rows.some((r) => r.status !== 'pending') };
}

/**
 * Records the key each member's card was drawn with, in one statement, and says whether every
 * member's request still has that key (else the batch moved on while drawn and is drawn again).
 */
async function markBatchDrawn(db: SlackDb, marks: ReadonlyArray<{ actionId: number; key: string }>): Promise<boolean> {
  if (marks.length === 0) return true;
  const values = sql.join(marks.map((m) => sql`(${m.actionId}::integer, ${m.key}::text)`));
  const result = await sql<{ action_id: number; key: string; current: string }>`
    WITH m (action_id, key) AS (VALUES ${values}),
    upd AS (
      UPDATE slack_cards c SET drawn = m.key, drawn_at = now(), repair_claimed_at = NULL
      FROM m WHERE c.action_id = m.action_id
      RETURNING c.action_id
    )
    SELECT m.action_id, m.key, ${cardStateKeySql('p')} AS current
    FROM m JOIN pending_actions p ON p.id = m.action_id
    WHERE EXISTS (SELECT 1 FROM upd)
  `.execute(db);
  return result.rows.every((r) => r.key === r.current);
}
