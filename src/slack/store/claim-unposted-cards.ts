import { sql } from 'kysely';
import type { SlackDb } from './slack-tables.js';

/**
 * Requests of `agentId` still pending `graceMs` after they were written that
 * have no card: their process stopped between writing them and posting the
 * card (a card that could not be posted gets a notice or is cancelled, so it
 * is never left like this). Each id returned was claimed for this caller in
 * the same statement, so exactly one instance posts each card.
 *
 * A repair is claimed again once its own claim is `graceMs` old and the card
 * is still missing: the instance repairing it stopped too, and the request
 * would otherwise wait unseen until it expired. `graceMs` is well past the
 * Web API's retries, so a repair still under way is not repeated.
 */
export async function claimUnpostedCards(db: SlackDb, agentId: string, graceMs: number, limit = 50): Promise<number[]> {
  const grace = sql`make_interval(secs => ${graceMs} / 1000.0)`;
  const result = await sql<{ action_id: number }>`
    INSERT INTO slack_card_repairs (action_id)
    SELECT p.id FROM pending_actions p
    WHERE p.status = 'pending' AND p.kind IN ('approval', 'suspension')
      AND p.created_at < now() - ${grace}
      AND p.path->>0 = ${agentId}
      AND NOT EXISTS (SELECT 1 FROM slack_cards c WHERE c.action_id = p.id)
      AND NOT EXISTS (SELECT 1 FROM slack_card_repairs r WHERE r.action_id = p.id AND r.claimed_at >= now() - ${grace})
    ORDER BY p.id
    LIMIT ${limit}
    ON CONFLICT (action_id) DO UPDATE SET claimed_at = now()
      WHERE slack_card_repairs.claimed_at < now() - ${grace}
    RETURNING action_id
  `.execute(db);
  return result.rows.map((r) => r.action_id);
}
