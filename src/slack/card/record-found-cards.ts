import { sql } from 'kysely';
import type { CardRow } from './cards.js';
import type { SlackDb } from '../tables.js';

/**
 * Stores where cards found in Slack are (see adoptCard): cards that were posted but whose
 * location was never stored. Only where a request has no card row yet: another instance may have
 * adopted the same message a moment before, and only one of them may go on to route it. `drawn`
 * is left unknown, so whatever draws next draws the request as it is. One statement for a card of
 * its own and a batch's members alike; returns the ids this call stored.
 */
export async function recordFoundCards(db: SlackDb, cards: ReadonlyArray<Omit<CardRow, 'drawn' | 'copies'>>): Promise<number[]> {
  if (cards.length === 0) return [];
  const values = sql.join(
    cards.map((c) => sql`(${c.action_id}::integer, ${c.channel}, ${c.ts}, ${c.thread_ts}, ${c.kind}, ${c.batch ? JSON.stringify(c.batch) : null}::jsonb)`),
  );
  const result = await sql<{ action_id: number }>`
    INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind, batch)
    VALUES ${values}
    ON CONFLICT (action_id) DO NOTHING
    RETURNING action_id
  `.execute(db);
  return result.rows.map((r) => r.action_id);
}
