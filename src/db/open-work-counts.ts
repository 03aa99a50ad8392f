import { sql } from 'kysely';
import type { Db } from './database.js';

interface OpenWorkCounts {
  /** Requests waiting on a person (approvals and suspensions), by kind and whether past their expiry. */
  requests: Array<{ kind: string; state: 'pending' | 'overdue'; count: number }>;
  /** Top-level runs on record, by status (suspended: waiting; running: being continued by an instance). */
  runs: Array<{ status: string; count: number }>;
}

/**
 * What is open right now, in one statement, for a metrics scrape (never on the hot path). The
 * requests come from the partial index on pending rows; `overdue` ones are past `expires_at` and
 * wait for a sweep, so a growing count means sweeps are not keeping up.
 */
export async function openWorkCounts(db: Db): Promise<OpenWorkCounts> {
  const result = await sql<{ what: 'request' | 'run'; kind: string; state: string; n: number }>`
    SELECT 'request' AS what, kind,
           CASE WHEN expires_at IS NOT NULL AND expires_at <= now() THEN 'overdue' ELSE 'pending' END AS state,
           count(*)::int AS n
      FROM pending_actions WHERE status = 'pending' AND kind <> 'delegation'
      GROUP BY 1, 2, 3
    UNION ALL
    SELECT 'run', '', status, count(*)::int FROM run_snapshots WHERE parent_run_id IS NULL GROUP BY 1, 2, 3
  `.execute(db);
  const counts: OpenWorkCounts = { requests: [], runs: [] };
  for (const row of result.rows) {
    if (row.what === 'request') counts.requests.push({ kind: row.kind, state: row.state as 'pending' | 'overdue', count: Number(row.n) });
    else counts.runs.push({ status: row.state, count: Number(row.n) });
  }
  return counts;
}
