import { sql } from 'kysely';
import { claimRepairs } from './claim-repairs.js';
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
  const cardless = sql`
    SELECT p.id, p.id AS sort FROM pending_actions p
    WHERE p.status = 'pending' AND p.kind IN ('approval', 'suspension')
      AND p.created_at < now() - make_interval(secs => ${graceMs} / 1000.0)
      AND p.path->>0 = ${agentId}
      AND NOT EXISTS (SELECT 1 FROM slack_cards c WHERE c.action_id = p.id)
  `;
  const result = await sql<{ action_id: number }>`${claimRepairs({ table: 'slack_card_repairs', key: 'action_id' }, cardless, graceMs, limit)}`.execute(db);
  return result.rows.map((r) => r.action_id);
}
