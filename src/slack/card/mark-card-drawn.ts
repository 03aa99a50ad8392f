import { sql } from 'kysely';
import { cardStateKeySql } from './card-state-key.js';
import type { SlackDb } from '../tables.js';

/**
 * Records that a card now shows `key` (its repair, if one was claimed, is done)
 * and returns the key its request has now: when they differ, the request moved
 * on while the card was being drawn (another instance decided, a redraw landed
 * out of order), and the card must be drawn again. Undefined when the card or
 * its request is not on record.
 */
export async function markCardDrawn(db: SlackDb, actionId: number, key: string): Promise<string | undefined> {
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
