import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { PendingAction } from '../db/pending-action.js';
import { pendingActionColumns as columns } from './pending-actions.js';

/**
 * Adds one approver's vote, exactly once. The row moves out of `pending` only
 * when the quorum is reached, and in that same statement the single-use grant
 * and the audit event are written. The WHERE clause is the whole concurrency
 * story: a second click, a second instance or a stale policy finds no row.
 */
export async function recordApprovalVote(
  db: Db,
  vote: { actionId: number; actor: string; policyVersion: string; grantTtlMs: number },
): Promise<PendingAction | undefined> {
  const ballot = JSON.stringify([{ userId: vote.actor, at: new Date().toISOString() }]);
  const voter = JSON.stringify([{ userId: vote.actor }]);
  const result = await sql<PendingAction>`
    WITH upd AS (
      UPDATE pending_actions SET
        approvals  = approvals || ${ballot}::jsonb,
        status     = CASE WHEN jsonb_array_length(approvals) + 1 >= quorum THEN 'approved' ELSE 'pending' END,
        decided_by = CASE WHEN jsonb_array_length(approvals) + 1 >= quorum THEN ${vote.actor} ELSE NULL END,
        decided_at = CASE WHEN jsonb_array_length(approvals) + 1 >= quorum THEN now() ELSE NULL END
      WHERE id = ${vote.actionId} AND kind = 'approval' AND status = 'pending'
        AND policy_version = ${vote.policyVersion}
        AND (expires_at IS NULL OR expires_at > now())
        AND NOT approvals @> ${voter}::jsonb
      RETURNING ${columns}
    ), grant_row AS (
      INSERT INTO approval_grants (action_id, run_id, tool_call_id, fingerprint, approvers, requester, policy_version, expires_at)
      SELECT id, run_id, tool_call_id, fingerprint, (SELECT jsonb_agg(a->'userId') FROM jsonb_array_elements(approvals) a),
             requester, policy_version, now() + make_interval(secs => ${vote.grantTtlMs} / 1000.0)
      FROM upd WHERE status = 'approved'
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT CASE WHEN status = 'approved' THEN 'approved' ELSE 'approval-recorded' END,
             run_id, tool_call_id, tool_name, ${vote.actor}, fingerprint, policy_version,
             jsonb_build_object('approvals', jsonb_array_length(approvals), 'quorum', quorum)
      FROM upd
    )
    SELECT * FROM upd
  `.execute(db);
  return result.rows[0];
}

export async function recordDecline(
  db: Db,
  decline: { actionId: number; actor: string; reason: string | null; policyVersion: string },
): Promise<PendingAction | undefined> {
  const result = await sql<PendingAction>`
    WITH upd AS (
      UPDATE pending_actions SET status = 'declined', decided_by = ${decline.actor}, decided_at = now(),
        reason = ${decline.reason}
      WHERE id = ${decline.actionId} AND kind = 'approval' AND status = 'pending'
        AND policy_version = ${decline.policyVersion}
        AND (expires_at IS NULL OR expires_at > now())
      RETURNING ${columns}
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT 'declined', run_id, tool_call_id, tool_name, ${decline.actor}, fingerprint, policy_version,
             CASE WHEN reason IS NULL THEN NULL ELSE jsonb_build_object('reason', reason) END
      FROM upd
    )
    SELECT * FROM upd
  `.execute(db);
  return result.rows[0];
}

/**
 * Moves a pending row to a terminal status with its audit event, only if it is
 * still pending (and, for expiry, really past its time).
 */
export async function closeAction(
  db: Db,
  close: {
    actionId: number;
    status: 'expired' | 'superseded' | 'cancelled';
    actor?: string | null;
    reason?: string | null;
  },
): Promise<PendingAction | undefined> {
  const mustBeExpired = close.status === 'expired';
  const result = await sql<PendingAction>`
    WITH upd AS (
      UPDATE pending_actions SET status = ${close.status}, decided_at = now(),
        decided_by = ${close.actor ?? null}, reason = ${close.reason ?? null}
      WHERE id = ${close.actionId} AND status = 'pending'
        AND (NOT ${mustBeExpired} OR (expires_at IS NOT NULL AND expires_at <= now()))
      RETURNING ${columns}
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT ${close.status}, run_id, tool_call_id, tool_name, ${close.actor ?? null}, fingerprint, policy_version,
             CASE WHEN reason IS NULL THEN NULL ELSE jsonb_build_object('reason', reason) END
      FROM upd
    )
    SELECT * FROM upd
  `.execute(db);
  return result.rows[0];
}

/** Stores data for a tool that suspended itself; first answer wins. */
export async function recordResume(
  db: Db,
  resume: { actionId: number; resumeData: unknown; actor?: string | null },
): Promise<PendingAction | undefined> {
  const result = await sql<PendingAction>`
    WITH upd AS (
      UPDATE pending_actions SET status = 'resumed', resume_data = ${JSON.stringify(resume.resumeData ?? null)}::jsonb,
        decided_by = ${resume.actor ?? null}, decided_at = now()
      WHERE id = ${resume.actionId} AND kind = 'suspension' AND status = 'pending'
      RETURNING ${columns}
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor)
      SELECT 'resumed', run_id, tool_call_id, tool_name, ${resume.actor ?? null} FROM upd
    )
    SELECT * FROM upd
  `.execute(db);
  return result.rows[0];
}
