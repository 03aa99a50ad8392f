import { sql } from 'kysely';
import type { Db } from './database.js';
import type { SpentGrant } from './rows.js';

export interface GrantCheck {
  runId: string;
  toolCallId: string;
  toolName: string;
  /** Fingerprint of the arguments about to run, computed right before execute. */
  fingerprint: string;
  policyVersion: string;
  /**
   * What the call is bound to besides its arguments (agent/bound-call.ts), worked out right before
   * execute: its preview's state digest and its tool's definition digest; null (or absent) where
   * there is none. A grant authorises only the digests it was written with.
   */
  stateDigest?: string | null;
  toolDigest?: string | null;
}

/** Why a call was blocked at its grant check, as the audit log records it. */
export const noMatchingGrant = 'no unconsumed grant matches these arguments';

/** The grant matched, but had outlived its time to live (the step waited on another call that long). */
export const expiredGrant = 'the approval expired before the call ran';

/** `expired`: the only matching grant had expired, so the approval itself is stale rather than the arguments wrong. */
type GrantConsumption = { ok: true; grantId: number; approvers: string[] } | { ok: false; expired?: true };

/**
 * Spends the single-use grant for exactly these arguments, in one conditional
 * statement that also writes `consumed` or `blocked` to the audit log. No
 * unconsumed grant for this run, call, fingerprint and policy version means the
 * call does not run: not a replay, not changed arguments, not an old policy.
 */
export async function consumeGrant(db: Db, check: GrantCheck): Promise<GrantConsumption> {
  const matches = sql`run_id = ${check.runId} AND tool_call_id = ${check.toolCallId}
        AND fingerprint = ${check.fingerprint} AND policy_version = ${check.policyVersion} AND consumed_at IS NULL
        AND state_digest IS NOT DISTINCT FROM ${check.stateDigest ?? null}::text AND tool_digest IS NOT DISTINCT FROM ${check.toolDigest ?? null}::text`;
  const result = await sql<{ id: number | null; approvers: string[] | null; expired: boolean }>`
    WITH g AS (
      UPDATE approval_grants SET consumed_at = now()
      WHERE ${matches} AND expires_at > now()
      RETURNING id, approvers
    ), stale AS (
      SELECT 1 FROM approval_grants WHERE ${matches} AND expires_at <= now() AND NOT EXISTS (SELECT 1 FROM g) LIMIT 1
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, fingerprint, policy_version, detail)
      SELECT CASE WHEN EXISTS (SELECT 1 FROM g) THEN 'consumed' ELSE 'blocked' END,
             ${check.runId}, ${check.toolCallId}, ${check.toolName}, ${check.fingerprint}, ${check.policyVersion},
             CASE WHEN EXISTS (SELECT 1 FROM g) THEN NULL
                  WHEN EXISTS (SELECT 1 FROM stale) THEN jsonb_build_object('reason', ${expiredGrant}::text)
                  ELSE jsonb_build_object('reason', ${noMatchingGrant}::text) END
    )
    SELECT id, approvers, false AS expired FROM g
    UNION ALL SELECT NULL, NULL, true FROM stale
  `.execute(db);
  const row = result.rows[0];
  if (row && !row.expired) return { ok: true, grantId: row.id!, approvers: row.approvers! };
  return row?.expired ? { ok: false, expired: true } : { ok: false };
}

/**
 * The same check as consumeGrant for a grant the deciding statement already
 * spent on this process's behalf (see LeasedRun.spentGrant): it authorises only
 * exactly the arguments it was issued for, under the same policy version.
 */
export function matchSpentGrant(grant: SpentGrant, check: GrantCheck): GrantConsumption {
  return grant.fingerprint === check.fingerprint &&
    grant.policy_version === check.policyVersion &&
    (grant.state_digest ?? null) === (check.stateDigest ?? null) &&
    (grant.tool_digest ?? null) === (check.toolDigest ?? null)
    ? { ok: true, grantId: grant.id, approvers: grant.approvers }
    : { ok: false };
}

/**
 * Whether the grant of this request (`actionId`) for exactly these arguments exists and was
 * already spent. By request: a call asked again (bound-call.ts) has an earlier request whose
 * grant the deciding vote may have spent without the call running.
 */
export async function grantWasSpent(db: Db, check: GrantCheck, actionId: number): Promise<boolean> {
  const result = await sql<{ one: number }>`
    SELECT 1 AS one FROM approval_grants
    WHERE run_id = ${check.runId} AND tool_call_id = ${check.toolCallId} AND action_id = ${actionId}
      AND fingerprint = ${check.fingerprint} AND policy_version = ${check.policyVersion}
      AND consumed_at IS NOT NULL
    LIMIT 1
  `.execute(db);
  return result.rows.length > 0;
}
