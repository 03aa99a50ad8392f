import { sql } from 'kysely';
import type { CardRow } from './cards.js';
import type { SlackDb } from './slack-tables.js';

/**
 * After an edit, the card (and its routed copies) goes on showing the request that replaced the
 * edited one: the new request gets the card's place, and the old row is marked settled with the
 * key it ends in, so no sweep ever draws the old request over the new one. One statement.
 * Returns the new request's card; undefined when the old one had none (or the new one already
 * has a card of its own, which `findCard` then gives).
 */
export async function carryCard(db: SlackDb, fromActionId: number, fromKey: string, toActionId: number): Promise<CardRow | undefined> {
  const result = await sql<CardRow>`
    WITH old AS (
      UPDATE slack_cards SET settled = true, drawn = ${fromKey}, drawn_at = now(), repair_claimed_at = NULL
      WHERE action_id = ${fromActionId}
      RETURNING channel, ts, thread_ts, kind, copies
    )
    INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind, drawn, copies)
    SELECT ${toActionId}, channel, ts, thread_ts, kind, NULL, copies FROM old
    ON CONFLICT (action_id) DO NOTHING
    RETURNING action_id, channel, ts, thread_ts, kind, drawn, copies
  `.execute(db);
  return result.rows[0];
}
