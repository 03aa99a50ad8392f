import { sql, type RawBuilder } from 'kysely';
import type { CardRow } from '../card/cards.js';
import type { SlackDb } from '../tables.js';

/**
 * After an edit, the card (and its routed copies) goes on showing the request that replaced the
 * edited one: the new request gets the card's place, and the old row is marked settled with the
 * key it ends in, so no sweep ever draws the old request over the new one. On a batch card the
 * new request takes the edited one's place in the batch (`batch`, in the row of every request of
 * the batch's calls, those earlier edits replaced included), so every redraw, click, repair and
 * restart finds the batch with the new request in it. Returns the new request's card; undefined when the old one had none (or the new
 * one already has a card of its own, which `findCard` then gives).
 *
 * One transaction: the batch's rows are locked first (in id order, so two edits of one batch
 * cannot deadlock), and the carry runs after the lock, on what the other edit committed: two
 * members edited at once each take their place, neither undoes the other's.
 */
export async function carryCard(db: SlackDb, fromActionId: number, fromKey: string, toActionId: number): Promise<CardRow | undefined> {
  return db.transaction().execute(async (tx) => {
    await sql`
      SELECT c.action_id FROM slack_cards c
      WHERE c.action_id = ${fromActionId}
         OR c.action_id IN (${requestsOfBatch(sql`(SELECT o.batch FROM slack_cards o WHERE o.action_id = ${fromActionId})`)})
      ORDER BY c.action_id
      FOR UPDATE
    `.execute(tx);
    const swapped = (batch: RawBuilder<unknown>) => sql`
      (SELECT jsonb_agg(CASE WHEN e = to_jsonb(${fromActionId}::integer) THEN to_jsonb(${toActionId}::integer) ELSE e END ORDER BY n)
       FROM jsonb_array_elements(${batch}) WITH ORDINALITY AS t(e, n))`;
    const result = await sql<CardRow>`
      WITH old AS (
        UPDATE slack_cards SET settled = true, drawn = ${fromKey}, drawn_at = now(), repair_claimed_at = NULL,
          batch = CASE WHEN batch IS NULL THEN NULL ELSE ${swapped(sql.raw('batch'))} END
        WHERE action_id = ${fromActionId}
        RETURNING channel, ts, thread_ts, kind, copies, batch
      ), members AS (
        UPDATE slack_cards c SET batch = ${swapped(sql.raw('c.batch'))}
        WHERE c.batch IS NOT NULL AND c.action_id NOT IN (${fromActionId}, ${toActionId})
          AND c.action_id IN (${requestsOfBatch(sql`(SELECT batch FROM old)`)})
        RETURNING c.action_id
      )
      INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind, drawn, copies, batch)
      SELECT ${toActionId}, channel, ts, thread_ts, kind, NULL, copies, batch FROM old
      ON CONFLICT (action_id) DO NOTHING
      RETURNING action_id, channel, ts, thread_ts, kind, drawn, copies, batch
    `.execute(tx);
    return result.rows[0];
  });
}

/**
 * Every request of the calls a batch lists: its members and the requests earlier edits replaced
 * (their settled rows keep the batch too, so a redraw through one of them draws the batch as it is).
 */
function requestsOfBatch(batch: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    SELECT p.id FROM pending_actions q
    JOIN pending_actions p ON p.run_id = q.run_id AND p.tool_call_id = q.tool_call_id
    WHERE q.id IN (SELECT (jsonb_array_elements_text(${batch}))::integer)`;
}
