import { sql } from 'kysely';
import type { SlackDb } from '../tables.js';
import { type CardRow, cardStateKeySql } from '../card/cards.js';

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
export async function markBatchDrawn(db: SlackDb, marks: ReadonlyArray<{ actionId: number; key: string }>): Promise<boolean> {
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
