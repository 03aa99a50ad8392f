import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/**
 * Cancels every pending request of these top-level runs and drops their
 * suspended snapshots, with an audit event per request, in one statement. A
 * decision landing at the same moment either comes first (its run goes on if
 * the decision claimed it, or is dropped with the rest when another of its
 * requests was still open) or finds its request cancelled; never half of a run
 * cancelled and the rest going on. A run already claimed keeps going. Returns
 * the ids of the requests it cancelled: none when a decision came first.
 */
export async function cancelPendingRuns(db: Db, rootRunIds: string[], actor: string, reason: string): Promise<number[]> {
  if (rootRunIds.length === 0) return [];
  const roots = sql.join(rootRunIds.map((id) => sql`${id}`));
  const result = await sql<{ id: number }>`
    WITH upd AS (
      UPDATE pending_actions SET status = 'cancelled', decided_at = now(), decided_by = ${actor}, reason = ${reason}
      WHERE root_run_id IN (${roots}) AND status = 'pending'
      RETURNING id, run_id, tool_call_id, tool_name, fingerprint, policy_version
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT 'cancelled', run_id, tool_call_id, tool_name, ${actor}, fingerprint, policy_version, jsonb_build_object('reason', ${reason}::text)
      FROM upd
    ), gone AS (
      DELETE FROM run_snapshots WHERE root_run_id IN (${roots}) AND status = 'suspended'
    )
    SELECT id FROM upd ORDER BY id
  `.execute(db);
  return result.rows.map((r) => r.id);
}
