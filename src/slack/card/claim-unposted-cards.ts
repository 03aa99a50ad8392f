import { sql } from 'kysely';
import { claimRepairs } from './claim-repairs.js';
import type { SlackDb } from '../tables.js';

/**
 * Requests of `agentId` written more than `graceMs` ago that have no card row: their process
 * stopped between writing them and posting the card, or posted it and could not store where it
 * went (the database connection dropped in between; the message's metadata names the request, so
 * the repair finds it, see adoptCard); a card that could not be posted at all got a notice, and
 * its repair tries again. Pending requests are found by their missing card; a request decided
 * meanwhile only when a repair of it is on record (flagLostCard, or a claim made while it was
 * pending), since most decided requests without a card never had one (remembered approvals,
 * notices). Each id returned was claimed for this caller in the same statement, so exactly one
 * instance repairs each card.
 *
 * A repair is claimed again once its own claim is `graceMs` old and the card is still missing:
 * the instance repairing it stopped too, and the request would otherwise wait unseen until it
 * expired. `graceMs` is well past the Web API's retries, so a repair still under way is not repeated.
 */
export async function claimUnpostedCards(db: SlackDb, agentId: string, graceMs: number, limit = 50): Promise<number[]> {
  const old = sql`p.created_at < now() - make_interval(secs => ${graceMs} / 1000.0)`;
  const cardless = sql`
    SELECT p.id, p.id AS sort FROM pending_actions p
    WHERE p.status = 'pending' AND p.kind IN ('approval', 'suspension')
      AND ${old} AND p.path->>0 = ${agentId}
      AND NOT EXISTS (SELECT 1 FROM slack_cards c WHERE c.action_id = p.id)
    UNION ALL
    SELECT p.id, p.id AS sort FROM slack_card_repairs r JOIN pending_actions p ON p.id = r.action_id
    WHERE p.status <> 'pending' AND p.kind IN ('approval', 'suspension')
      AND ${old} AND p.path->>0 = ${agentId}
      AND NOT EXISTS (SELECT 1 FROM slack_cards c WHERE c.action_id = p.id)
  `;
  const result = await sql<{ action_id: number }>`${claimRepairs({ table: 'slack_card_repairs', key: 'action_id' }, cardless, graceMs, limit)}`.execute(db);
  return result.rows.map((r) => r.action_id);
}

/**
 * Puts a request whose card may be in Slack without a row on the sweep's list (see
 * claimUnpostedCards), for when looking for it failed (Slack answered with an error). Dated far
 * back, so the next sweep takes it; a claim already there is left as it is.
 */
export async function flagLostCard(db: SlackDb, actionId: number): Promise<void> {
  await sql`
    INSERT INTO slack_card_repairs (action_id, claimed_at) VALUES (${actionId}, to_timestamp(0))
    ON CONFLICT (action_id) DO NOTHING
  `.execute(db);
}

/** The repair of a request's card is over (its card is on record, or there is none to find): it is off the sweep's list. */
export async function settleCardRepair(db: SlackDb, actionId: number): Promise<void> {
  await db.deleteFrom('slack_card_repairs').where('action_id', '=', actionId).execute();
}
