import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';
import { pendingActionColumns, type PendingAction, type SpentGrant } from './rows.js';

/** A remembered approval: later identical calls by the same requester run without a card until it ends. */
export interface RememberedGrant {
  id: number;
  /** The request whose approval created it. */
  action_id: number;
  agent_id: string;
  path: string[];
  tool_name: string;
  fingerprint: string;
  args: unknown;
  requester: string;
  policy_version: string;
  approvers: string[];
  created_by: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  revoked_by: string | null;
  /** The preview's state and the tool definition it was given for (see agent/bound-call.ts); null where there is none. */
  state_digest: string | null;
  tool_digest: string | null;
}

const columns = sql.raw(
  'r.id, r.action_id, r.agent_id, r.path, r.tool_name, r.fingerprint, r.args, r.requester, r.policy_version, r.approvers, ' +
    'r.created_by, r.created_at, r.expires_at, r.revoked_at, r.revoked_by, r.state_digest, r.tool_digest',
);

/**
 * What the approvals a remembered approval stands for satisfied: the requirement of the request
 * they approved (its limits included). A later call may use it only if its own requirement asks
 * nothing more (see useRememberedGrant).
 */
export interface RememberedRequirement {
  quorum: number;
  /** User ids and user-group ids; empty: anyone but the bot. */
  approvers: readonly string[];
  allowSelfApproval: boolean;
  requireReason: boolean;
}

/**
 * CTEs for recordApprovalVote (after its `upd`), added only when the deciding vote asked to
 * remember: once the request is approved and every ballot asked to remember (one approver cannot
 * stretch the others' approval), the remembered grant (with the requirement it satisfied) and
 * its `remembered` audit event are written in the vote's own statement. A request without a
 * requester is never remembered.
 */
export function rememberCtes(actor: string, rememberForMs: number, satisfied: RememberedRequirement): RawBuilder<unknown> {
  const requirement = JSON.stringify(requirementJson(satisfied));
  return sql`
    remembered AS (
      INSERT INTO remembered_grants (action_id, agent_id, path, tool_name, fingerprint, args, requester, policy_version,
                                     approvers, created_by, expires_at, requirement, state_digest, tool_digest)
      SELECT id, path->>0, path, tool_name, fingerprint, args, requester, policy_version,
             (SELECT jsonb_agg(a->'userId') FROM jsonb_array_elements(approvals) a), ${actor},
             now() + make_interval(secs => ${rememberForMs} / 1000.0), ${requirement}::jsonb,
             preview->>'stateDigest', tool_pin->>'digest'
      FROM upd
      WHERE status = 'approved' AND requester IS NOT NULL AND fingerprint IS NOT NULL AND path IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(upd.approvals) a WHERE a->>'remember' IS DISTINCT FROM 'true')
      RETURNING id, expires_at
    ), remembered_audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT 'remembered', upd.run_id, upd.tool_call_id, upd.tool_name, ${actor}, upd.fingerprint, upd.policy_version,
             jsonb_build_object('rememberedGrantId', r.id, 'expiresAt', r.expires_at, 'requester', upd.requester)
      FROM remembered r CROSS JOIN upd
    )
  `;
}

function requirementJson(r: RememberedRequirement) {
  return { quorum: r.quorum, approvers: [...r.approvers], allowSelfApproval: r.allowSelfApproval, requireReason: r.requireReason };
}

/** The select-list entry that reports the remembered grant a vote created (see rememberCtes). */
export const rememberedSelect = sql`(SELECT to_jsonb(r.*) FROM remembered r) AS remembered`;

/** What the call about to use a remembered approval asks for now: its whole requirement, limits included. */
interface RequirementNow extends RememberedRequirement {
  risk: 'low' | 'high';
  /** The call goes over at least one cumulative limit now. */
  overLimits: boolean;
}

interface RememberedUseCall {
  runId: string;
  rootRunId: string;
  toolCallId: string;
  toolName: string;
  path: string[];
  args: unknown;
  /** Of the arguments about to be asked for. */
  fingerprint: string;
  requester: string;
  policyVersion: string;
  /** How long the single-use grant written for this call lives. */
  grantTtlMs: number;
  now: RequirementNow;
  /**
   * What the call is bound to besides its arguments (agent/bound-call.ts): its preview's state and
   * its tool's definition now, which the remembered approval must have been given for; and the
   * binding columns the approved request is written with.
   */
  stateDigest?: string | null;
  toolDigest?: string | null;
  binding?: { stated_reason?: string; preview?: unknown; tool_pin?: unknown };
}

/**
 * Why a live remembered approval matching a call did not cover it: what the call's requirement
 * now asks beyond what the approval satisfied. `limits`: it was remembered before its
 * requirement was kept, and a limit is involved now or then.
 */
export type UnusedWhy = 'risk' | 'quorum' | 'approvers' | 'self-approval' | 'reason' | 'limits';

/** Stored with the request the call asks instead (pending_actions.remembered_unused), for its card. */
export interface RememberedUnused {
  rememberedGrantId: number;
  allowedBy: string;
  /** How many approvals it stands for. */
  approvals: number;
  expiresAt: string;
  why: UnusedWhy[];
}

const unusedWhys: readonly UnusedWhy[] = ['risk', 'quorum', 'approvers', 'self-approval', 'reason', 'limits'];

/** A stored RememberedUnused, checked: anything not shaped like one is ignored, never trusted. */
export function rememberedUnusedFromRow(value: unknown): RememberedUnused | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Partial<RememberedUnused>;
  if (!Number.isInteger(v.rememberedGrantId) || typeof v.allowedBy !== 'string' || !Number.isInteger(v.approvals) || typeof v.expiresAt !== 'string') return undefined;
  if (!Array.isArray(v.why)) return undefined;
  const why = v.why.filter((w): w is UnusedWhy => unusedWhys.includes(w));
  return { rememberedGrantId: v.rememberedGrantId!, allowedBy: v.allowedBy, approvals: v.approvals!, expiresAt: v.expiresAt, why };
}

interface RememberedUse {
  /** The approved request written for this call. */
  row: PendingAction;
  /** Its single-use grant, spent in the same statement on this process's behalf. */
  grant: SpentGrant;
  remembered: { id: number; createdBy: string; expiresAt: Date };
}

/**
 * One statement: live (unexpired, unrevoked) remembered grants for exactly this tool, path,
 * fingerprint, requester and policy version are locked FOR SHARE and held against what the call
 * asks for now (`call.now`, its limits included): as many approvals as its quorum, approvers it
 * accepts (no more than the approval was given under, or listed by id now), no self-approval it
 * forbids, a reason where it needs one, never a high-risk call. One that covers it is used: an
 * approved request and its single-use grant (already spent, as a deciding vote spends one for a
 * run it leases) are written with `remembered-grant-used` and `consumed` in the audit log. A
 * revoke committed first is seen (the lock re-reads the row), so nothing is written; a revoke
 * arriving later waits for this statement.
 * `unused`: grants matched but none covers the call (why, of the best one); nothing written, the
 * call asks for approval as usual. Undefined: no live grant matches.
 */
export async function useRememberedGrant(db: Db, call: RememberedUseCall): Promise<{ used: RememberedUse } | { unused: RememberedUnused } | undefined> {
  const path = JSON.stringify(call.path);
  const now = call.now;
  const approversNow = JSON.stringify([...now.approvers]);
  const result = await sql<PendingAction & { spent_grant: SpentGrant | null; remembered_id: number; remembered_by: string; remembered_expires_at: Date; why: UnusedWhy[]; approval_count: number }>`
    WITH cand AS (
      SELECT g.id, g.approvers, g.created_by, g.expires_at, g.requirement AS satisfied, g.requester, p.limit_hits IS NULL AS asked_under_no_limit
      FROM remembered_grants g LEFT JOIN pending_actions p ON p.id = g.action_id
      WHERE g.fingerprint = ${call.fingerprint} AND g.requester = ${call.requester} AND g.policy_version = ${call.policyVersion}
        AND g.tool_name = ${call.toolName} AND g.path = ${path}::jsonb
        AND g.revoked_at IS NULL AND g.expires_at > now()
        -- Given for this state of what the call acts on and this definition of its tool (agent/bound-call.ts).
        AND g.state_digest IS NOT DISTINCT FROM ${call.stateDigest ?? null}::text AND g.tool_digest IS NOT DISTINCT FROM ${call.toolDigest ?? null}::text
      FOR SHARE OF g
    ), checked AS (
      SELECT c.*, array_remove(ARRAY[
          CASE WHEN ${now.risk === 'high'}::boolean THEN 'risk' END,
          CASE WHEN c.satisfied IS NOT NULL AND jsonb_array_length(c.approvers) < ${now.quorum}::int THEN 'quorum' END,
          CASE WHEN c.satisfied IS NOT NULL AND NOT (
                 ${approversNow}::jsonb = '[]'::jsonb
              OR ${approversNow}::jsonb @> c.approvers
              OR (jsonb_array_length(c.satisfied->'approvers') > 0 AND ${approversNow}::jsonb @> (c.satisfied->'approvers'))) THEN 'approvers' END,
          CASE WHEN NOT ${now.allowSelfApproval}::boolean AND c.approvers @> jsonb_build_array(c.requester) THEN 'self-approval' END,
          CASE WHEN c.satisfied IS NOT NULL AND ${now.requireReason}::boolean AND (c.satisfied->>'requireReason') IS DISTINCT FROM 'true' THEN 'reason' END,
          -- Remembered before its requirement was kept: only where it and the call are both under every limit.
          CASE WHEN c.satisfied IS NULL AND (${now.overLimits}::boolean OR NOT c.asked_under_no_limit) THEN 'limits' END
        ]::text[], NULL) AS why
      FROM cand c
    ), r AS (
      SELECT * FROM checked ORDER BY cardinality(why) = 0 DESC, expires_at DESC, id DESC LIMIT 1
    ), req AS (
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, path, status,
                                   requester, policy_version, quorum, approvals, expires_at, decided_by, decided_at, reason,
                                   stated_reason, preview, tool_pin)
      SELECT ${call.runId}, ${call.rootRunId}, ${call.toolCallId}, ${call.toolName}, 'approval', ${JSON.stringify(call.args ?? null)}::jsonb,
             ${call.fingerprint}, ${path}::jsonb, 'approved', ${call.requester}, ${call.policyVersion}, ${now.quorum}::int,
             COALESCE((SELECT jsonb_agg(jsonb_build_object('userId', u, 'at', now())) FROM jsonb_array_elements_text(r.approvers) u), '[]'::jsonb),
             now(), r.created_by, now(), 'remembered approval #' || r.id,
             ${call.binding?.stated_reason ?? null}::text, ${bound(call.binding?.preview)}::jsonb, ${bound(call.binding?.tool_pin)}::jsonb
      FROM r WHERE cardinality(r.why) = 0
      RETURNING ${pendingActionColumns()}
    ), g AS (
      INSERT INTO approval_grants (action_id, run_id, tool_call_id, fingerprint, approvers, requester, policy_version, expires_at, consumed_at,
                                   state_digest, tool_digest)
      SELECT req.id, req.run_id, req.tool_call_id, req.fingerprint, r.approvers, req.requester, req.policy_version,
             now() + make_interval(secs => ${call.grantTtlMs} / 1000.0), now(), ${call.stateDigest ?? null}::text, ${call.toolDigest ?? null}::text
      FROM req CROSS JOIN r
      RETURNING id, action_id, fingerprint, policy_version, approvers, state_digest, tool_digest
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT e.event, req.run_id, req.tool_call_id, req.tool_name, e.actor, req.fingerprint, req.policy_version, e.detail
      FROM req CROSS JOIN r CROSS JOIN LATERAL (VALUES
        (1, 'remembered-grant-used', r.created_by, jsonb_build_object('rememberedGrantId', r.id, 'actionId', req.id, 'requester', req.requester)),
        (2, 'consumed', NULL, NULL)) AS e(n, event, actor, detail)
      ORDER BY e.n
    )
    SELECT req.*, (SELECT to_jsonb(g.*) FROM g) AS spent_grant, r.id AS remembered_id, r.created_by AS remembered_by,
           r.expires_at AS remembered_expires_at, r.why, jsonb_array_length(r.approvers) AS approval_count
    FROM r LEFT JOIN req ON true
  `.execute(db);
  const found = result.rows[0];
  if (!found) return undefined;
  const { spent_grant, remembered_id, remembered_by, remembered_expires_at, why, approval_count, ...row } = found;
  const expiresAt = new Date(remembered_expires_at);
  if (row.id === null || !spent_grant) {
    return { unused: { rememberedGrantId: remembered_id, allowedBy: remembered_by, approvals: Number(approval_count), expiresAt: expiresAt.toISOString(), why } };
  }
  return { used: { row, grant: spent_grant, remembered: { id: remembered_id, createdBy: remembered_by, expiresAt } } };
}

/** Live remembered grants of a top-level agent, soonest to end first. */
export async function liveRememberedGrants(db: Db, agentId: string, limit = 200): Promise<RememberedGrant[]> {
  const result = await sql<RememberedGrant>`
    SELECT ${columns} FROM remembered_grants r
    WHERE r.agent_id = ${agentId} AND r.revoked_at IS NULL AND r.expires_at > now()
    ORDER BY r.expires_at, r.id
    LIMIT ${limit}
  `.execute(db);
  return result.rows;
}

export async function findRememberedGrant(db: Db, id: number): Promise<RememberedGrant | undefined> {
  const result = await sql<RememberedGrant>`SELECT ${columns} FROM remembered_grants r WHERE r.id = ${id}`.execute(db);
  return result.rows[0];
}

/**
 * Revokes a live remembered grant with its `remembered-revoked` audit event, in one conditional
 * statement. Undefined when it was already revoked or had ended. A use holding the row (FOR
 * SHARE) finishes first; every use after this commits finds it revoked.
 */
export async function revokeRememberedGrant(db: Db, id: number, actor: string): Promise<RememberedGrant | undefined> {
  const result = await sql<RememberedGrant>`
    WITH upd AS (
      UPDATE remembered_grants SET revoked_at = now(), revoked_by = ${actor}
      WHERE id = ${id} AND revoked_at IS NULL AND expires_at > now()
      RETURNING *
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT 'remembered-revoked', p.run_id, p.tool_call_id, upd.tool_name, ${actor}, upd.fingerprint, upd.policy_version,
             jsonb_build_object('rememberedGrantId', upd.id, 'requester', upd.requester)
      FROM upd JOIN pending_actions p ON p.id = upd.action_id
    )
    SELECT ${columns} FROM upd r
  `.execute(db);
  return result.rows[0];
}

/** A binding value as a jsonb parameter (NULL when absent). */
function bound(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/**
 * Ends the live remembered approvals of an MCP server's tools (`prefix`, its `<server>__`) at the
 * agent `path` of `agentId`'s tree that were given for a definition the server does not declare
 * now (`current`: each tool's name and definition digest as just listed; a tool it no longer has
 * ends them all), with a `remembered-revoked` audit event each, in one statement. A use holding
 * the row finishes first; every use after this commits finds it revoked (and a use that races it
 * finds the digest it was given for differ: useRememberedGrant's `tool-changed`).
 */
export async function endRememberedOfReplacedTools(
  db: Db,
  replaced: { agentId: string; path: readonly string[]; prefix: string; current: ReadonlyArray<{ toolName: string; digest: string }>; reason: string },
): Promise<RememberedGrant[]> {
  const result = await sql<RememberedGrant>`
    WITH cur AS (
      SELECT c.tool_name, c.digest FROM jsonb_to_recordset(${JSON.stringify(replaced.current.map((c) => ({ tool_name: c.toolName, digest: c.digest })))}::jsonb)
        AS c(tool_name text, digest text)
    ), upd AS (
      UPDATE remembered_grants g SET revoked_at = now()
      WHERE g.agent_id = ${replaced.agentId} AND g.path = ${JSON.stringify(replaced.path)}::jsonb
        AND left(g.tool_name, ${replaced.prefix.length}) = ${replaced.prefix}
        AND g.revoked_at IS NULL AND g.expires_at > now()
        AND NOT EXISTS (SELECT 1 FROM cur WHERE cur.tool_name = g.tool_name AND cur.digest = g.tool_digest)
      RETURNING *
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT 'remembered-revoked', p.run_id, p.tool_call_id, upd.tool_name, NULL, upd.fingerprint, upd.policy_version,
             jsonb_build_object('rememberedGrantId', upd.id, 'requester', upd.requester, 'reason', ${replaced.reason}::text,
                                'toolDigest', upd.tool_digest, 'toolDigestNow', (SELECT cur.digest FROM cur WHERE cur.tool_name = upd.tool_name))
      FROM upd JOIN pending_actions p ON p.id = upd.action_id
    )
    SELECT ${columns} FROM upd r ORDER BY r.id
  `.execute(db);
  return result.rows;
}
