import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';

const pendingColumns =
  'tool_call_id, tool_name, kind, args, fingerprint, suspend_payload, path, status, requester, policy_version, quorum, approvals, expires_at, decided_by, decided_at, reason, resume_data, created_at';

/**
 * Gives a schema a history, fast: clones the rows of one real finished run
 * `finished` times (pending_actions, approval_grants, audit_events: what a
 * finished run leaves behind for good) and the rows of one real suspended run
 * `open` times (run_snapshots, pending_actions, audit_events).
 * Clones get run ids `hist-fin-<n>` / `hist-open-<n>` and are never resumed.
 * Ends with VACUUM ANALYZE (needs the session's search_path on the bench schema).
 */
export async function prefillHistory(
  db: Db,
  template: { finishedRunId: string; suspendedRunId: string },
  counts: { finished: number; open: number },
): Promise<void> {
  const { finishedRunId: fin, suspendedRunId: open } = template;
  await sql`
    INSERT INTO pending_actions (run_id, root_run_id, ${sql.raw(pendingColumns)})
    SELECT 'hist-fin-' || g, 'hist-fin-' || g, ${sql.raw(pendingColumns)}
    FROM pending_actions, generate_series(1, ${counts.finished}::int) g WHERE run_id = ${fin}
  `.execute(db);
  await sql`
    INSERT INTO approval_grants (action_id, run_id, tool_call_id, fingerprint, approvers, requester, policy_version, created_at, expires_at, consumed_at)
    SELECT action_id, 'hist-fin-' || g, tool_call_id, fingerprint, approvers, requester, policy_version, created_at, expires_at, consumed_at
    FROM approval_grants, generate_series(1, ${counts.finished}::int) g WHERE run_id = ${fin}
  `.execute(db);
  await sql`
    INSERT INTO pending_actions (run_id, root_run_id, ${sql.raw(pendingColumns)})
    SELECT 'hist-open-' || g, 'hist-open-' || g, ${sql.raw(pendingColumns)}
    FROM pending_actions, generate_series(1, ${counts.open}::int) g WHERE run_id = ${open}
  `.execute(db);
  await sql`
    INSERT INTO run_snapshots (run_id, root_run_id, parent_run_id, agent_id, thread_id, resource_id, status, snapshot)
    SELECT 'hist-open-' || g, 'hist-open-' || g, parent_run_id, agent_id, thread_id, resource_id, status, snapshot
    FROM run_snapshots, generate_series(1, ${counts.open}::int) g WHERE run_id = ${open}
  `.execute(db);
  await sql`
    INSERT INTO audit_events (at, event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
    SELECT at, event, CASE WHEN run_id = ${fin} THEN 'hist-fin-' ELSE 'hist-open-' END || g,
           tool_call_id, tool_name, actor, fingerprint, policy_version, detail
    FROM audit_events, generate_series(1, ${Math.max(counts.finished, counts.open)}::int) g
    WHERE (run_id = ${fin} AND g <= ${counts.finished}) OR (run_id = ${open} AND g <= ${counts.open})
  `.execute(db);
  // Vacuum now, so autovacuum does not wake up on these tables in the middle of the measurement.
  await sql`VACUUM ANALYZE run_snapshots, pending_actions, approval_grants, audit_events`.execute(db);
}
