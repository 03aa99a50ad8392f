import { sql } from 'kysely';
import type { Db } from './database.js';
import type { SnapshotRow } from './run-snapshots.js';
import { insertAuditRows, type AuditInput } from '../approvals/audit.js';
import { pendingActionColumns } from '../approvals/pending-actions.js';
import type { PendingAction } from './pending-action.js';

/** What suspending writes; status and time are set by the statement. */
export type SnapshotWrite = Omit<SnapshotRow, 'status' | 'suspended_at'>;

export interface PendingWrite {
  run_id: string;
  root_run_id: string;
  tool_call_id: string;
  tool_name: string;
  kind: 'approval' | 'suspension' | 'delegation';
  args: unknown;
  fingerprint: string | null;
  suspend_payload: unknown;
  path: string[];
  requester: string | null;
  policy_version: string | null;
  quorum: number;
  expires_in_ms: number | null;
}

/** A `requested`/`suspended` audit row per human-facing call written by the \`acts\` CTE. */
const requestedAudit = sql`
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version)
      SELECT CASE kind WHEN 'approval' THEN 'requested' ELSE 'suspended' END,
             run_id, tool_call_id, tool_name, requester, fingerprint, policy_version
      FROM acts WHERE kind <> 'delegation'`;

/**
 * Writes a paused agent tree in one statement: snapshots (upserted, since a
 * resumed run that pauses again already has its row), the calls it waits on,
 * and a `requested`/`suspended` audit event per human-facing call. One
 * statement means all or nothing: no call is visible to approvers before the
 * runs that must resume after it are on record. Returns the rows of the calls
 * as stored, so whoever shows them need not read them back.
 */
export async function persistSuspension(
  db: Db,
  snapshots: SnapshotWrite[],
  actions: PendingWrite[],
  audit: AuditInput[] = [],
): Promise<PendingAction[]> {
  const result = await sql<PendingAction>`
    WITH snaps AS (
      INSERT INTO run_snapshots (run_id, root_run_id, parent_run_id, agent_id, thread_id, resource_id, status, snapshot)
      SELECT s.run_id, s.root_run_id, s.parent_run_id, s.agent_id, s.thread_id, s.resource_id, 'suspended', s.snapshot
      FROM jsonb_to_recordset(${JSON.stringify(snapshots)}::jsonb) AS s(
        run_id text, root_run_id text, parent_run_id text, agent_id text, thread_id text, resource_id text, snapshot jsonb)
      ON CONFLICT (run_id) DO UPDATE
        SET status = 'suspended', snapshot = EXCLUDED.snapshot, suspended_at = now(), claimed_at = NULL
      RETURNING run_id
    ), acts AS (
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint,
                                   suspend_payload, path, requester, policy_version, quorum, expires_at)
      SELECT a.run_id, a.root_run_id, a.tool_call_id, a.tool_name, a.kind, a.args, a.fingerprint,
             a.suspend_payload, a.path, a.requester, a.policy_version, a.quorum,
             CASE WHEN a.expires_in_ms IS NULL THEN NULL
                  ELSE now() + make_interval(secs => a.expires_in_ms / 1000.0) END
      FROM jsonb_to_recordset(${JSON.stringify(actions)}::jsonb) AS a(
        run_id text, root_run_id text, tool_call_id text, tool_name text, kind text, args jsonb,
        fingerprint text, suspend_payload jsonb, path jsonb, requester text, policy_version text,
        quorum integer, expires_in_ms bigint)
      RETURNING ${pendingActionColumns}
    )${
      audit.length
        ? sql`, earlier AS (
      ${insertAuditRows(audit)}
    ), audit AS (
      -- Reading \`earlier\` first makes what already happened (e.g. \`executed\`) precede the new requests.
      ${requestedAudit} AND (SELECT count(*) FROM earlier) >= 0 ORDER BY id
    )`
        : sql`, audit AS (${requestedAudit} ORDER BY id)`
    }
    SELECT * FROM acts
  `.execute(db);
  return result.rows;
}
