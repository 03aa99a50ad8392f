import { sql } from 'kysely';
import { blockedSql, cardStateKeySql } from './card-state-key.js';
import type { SlackDb } from '../tables.js';

/**
 * Cards of `agentId` that do not show their request as it is: a redraw that
 * failed every retry, landed before an older one, or never happened because
 * its process stopped between the decision and the redraw. Only changes older
 * than `graceMs` count (a redraw may still be under way), and each card
 * returned is claimed for this caller in the same statement, so one instance
 * redraws it; a claim is retried once it is `graceMs` old. Cards that show a
 * request that can change no more are marked settled in passing, and are not
 * looked at again: the scan only ever covers recent cards.
 */
export async function claimStaleCards(db: SlackDb, agentId: string, graceMs: number, limit = 50): Promise<number[]> {
  const grace = sql`make_interval(secs => ${graceMs} / 1000.0)`;
  const result = await sql<{ action_id: number }>`
    WITH cards AS (
      SELECT c.action_id, c.drawn, c.repair_claimed_at, ${cardStateKeySql('p')} AS key,
        (p.status <> 'pending' AND (p.status <> 'approved' OR ${blockedSql('p')}
          OR NOT EXISTS (SELECT 1 FROM run_snapshots s WHERE s.run_id = p.run_id))) AS final,
        COALESCE(p.decided_at, (SELECT max((a->>'at')::timestamptz) FROM jsonb_array_elements(p.approvals) a), p.created_at) AS changed_at
      FROM slack_cards c JOIN pending_actions p ON p.id = c.action_id
      WHERE NOT c.settled AND p.path->>0 = ${agentId}
    ), settle AS (
      UPDATE slack_cards c SET settled = true FROM cards x
      WHERE c.action_id = x.action_id AND x.final AND x.drawn = x.key
    )
    UPDATE slack_cards c SET repair_claimed_at = now()
    FROM (
      SELECT action_id FROM cards
      WHERE drawn IS DISTINCT FROM key AND changed_at < now() - ${grace}
        AND (repair_claimed_at IS NULL OR repair_claimed_at < now() - ${grace})
      ORDER BY action_id
      LIMIT ${limit}
    ) x
    WHERE c.action_id = x.action_id
    RETURNING c.action_id
  `.execute(db);
  return result.rows.map((r) => r.action_id);
}
