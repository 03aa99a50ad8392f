import { sql } from 'kysely';
import type { Db } from './database.js';
import { pendingActionColumns, type LeasedRow, type PendingAction } from './rows.js';
import { leaseDecidedRun, type DecisionWrite } from './pending-actions.js';
import type { SpentGrant } from './rows.js';
import type { Approval, RequestEdit } from './schema.js';
import { recountCtes, recountedHits, recountHeld, recountWrite, type Recount } from './limit-usage.js';

interface EditWrite {
  /** The request being edited, as the editor saw it: still pending with exactly this fingerprint. */
  fromActionId: number;
  fromFingerprint: string;
  /** When earlier approvals are carried over, the list they were computed from: it must not have moved. */
  fromApprovals?: Approval[];
  editor: string;
  args: unknown;
  fingerprint: string;
  policyVersion: string;
  quorum: number;
  expiresInMs: number | null;
  /** Approvals the new request starts with (carried over, and the editor's when they may approve it). */
  approvals: Approval[];
  edit: RequestEdit;
  grantTtlMs: number;
  /**
   * For a tool with cumulative limits: the edited call counted again (its element replaced) and
   * the limits the requirement above was worked out from. Absent: nothing is counted and the
   * new request keeps the edited one's limit hits.
   */
  recount?: Recount;
}

/** recordEdit's answer: written, not written (the request moved on), or not written because the limits moved. */
type EditWritten = (DecisionWrite & { previous: PendingAction }) | { limitsMoved: true } | undefined;

type EditResultRow = PendingAction & {
  limits_held?: boolean;
  leased: LeasedRow | null;
  run_actions: PendingAction[] | null;
  spent_grant: SpentGrant | null;
  previous: PendingAction;
};

/**
 * An approver's edit, in one statement: the request is closed as `edited` only if it is still
 * pending, unexpired and has the fingerprint the editor saw (the WHERE clause is the whole race
 * story: of two editors, or an edit and an approve, exactly one finds the row); a new request for
 * the same tool call opens with the edited arguments, their fingerprint and the requirement of
 * the arguments as edited, starting with the approvals given. When those meet the quorum the new
 * request is approved at once: its grant is written (spent, as a deciding vote's is, when the run
 * is leased here too) and the run is leased if nothing else of it is pending. `edited` is
 * audited with what was proposed and what it became.
 *
 * With `recount`, the same statement counts the edited call again under its counters' locks
 * (its contribution replaces the one it was asked with) and records the edit only if every
 * limit is over or under as the requirement given assumed; the new request stores the limits it
 * goes over with their re-counted totals (also in the `edited` audit event). `limitsMoved`:
 * another call or edit moved a limit in between, nothing was written, and the edit is worked out again.
 */
export async function recordEdit(db: Db, e: EditWrite): Promise<EditWritten> {
  const approved = e.approvals.length >= e.quorum;
  const decidedBy = approved ? e.editor : null;
  const r = e.recount;
  const selection = sql`
    SELECT upd.*,
      (SELECT to_jsonb(closed.*) FROM closed) AS previous,
      (SELECT to_jsonb(lease.*) FROM lease) AS leased,
      (SELECT jsonb_agg(to_jsonb(x.*)) FROM (
         SELECT DISTINCT ON (tool_call_id) ${pendingActionColumns()} FROM pending_actions
         WHERE run_id = upd.run_id AND EXISTS (SELECT 1 FROM lease)
         ORDER BY tool_call_id, id DESC) x) AS run_actions,
      (SELECT to_jsonb(g.*) - 'consumed_at' FROM grant_row g WHERE g.consumed_at IS NOT NULL) AS spent_grant
    FROM upd`;
  const result = await sql<EditResultRow>`
    WITH ${r ? sql`${recountCtes(r)},` : sql``} closed AS (
      UPDATE pending_actions SET status = 'edited', decided_by = ${e.editor}, decided_at = now()
      WHERE id = ${e.fromActionId} AND kind = 'approval' AND status = 'pending'
        AND fingerprint = ${e.fromFingerprint}
        AND (expires_at IS NULL OR expires_at > now())
        AND (${e.fromApprovals ? JSON.stringify(e.fromApprovals) : null}::jsonb IS NULL OR approvals = ${e.fromApprovals ? JSON.stringify(e.fromApprovals) : null}::jsonb)
        ${r ? sql`AND ${recountHeld}` : sql``}
      RETURNING ${pendingActionColumns()}
    ), ${r ? sql`counted AS (${recountWrite(r, 'closed')}), ` : sql``}upd AS (
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, suspend_payload, path,
                                   status, requester, policy_version, quorum, approvals, expires_at, decided_by, decided_at, edit, limit_hits,
                                   stated_reason, tool_pin, caller)
      SELECT run_id, root_run_id, tool_call_id, tool_name, 'approval', ${JSON.stringify(e.args ?? null)}::jsonb, ${e.fingerprint}, NULL, path,
             ${approved ? 'approved' : 'pending'}, requester, ${e.policyVersion}, ${e.quorum}, ${JSON.stringify(e.approvals)}::jsonb,
             CASE WHEN ${e.expiresInMs}::bigint IS NULL THEN NULL ELSE now() + make_interval(secs => ${e.expiresInMs}::bigint / 1000.0) END,
             ${decidedBy}::text, CASE WHEN ${approved} THEN now() END, ${JSON.stringify(e.edit)}::jsonb,
             ${r ? recountedHits(r) : sql`limit_hits`},
             -- The model's stated reason and the tool's pinned definition carry over; a preview of the
             -- arguments as asked does not describe the edited ones (agent/bound-call.ts asks again with one).
             stated_reason, tool_pin, caller
      FROM closed
      RETURNING ${pendingActionColumns()}
    ), ${leaseDecidedRun(sql`upd.status = 'approved'`, sql`${e.fromActionId}`)}, grant_row AS (
      INSERT INTO approval_grants (action_id, run_id, tool_call_id, fingerprint, approvers, requester, policy_version, expires_at, consumed_at,
                                   state_digest, tool_digest)
      SELECT id, run_id, tool_call_id, fingerprint, (SELECT jsonb_agg(a->'userId') FROM jsonb_array_elements(approvals) a),
             requester, policy_version, now() + make_interval(secs => ${e.grantTtlMs} / 1000.0),
             CASE WHEN EXISTS (SELECT 1 FROM lease) THEN now() END,
             preview->>'stateDigest', tool_pin->>'digest'
      FROM upd WHERE status = 'approved'
      RETURNING id, action_id, fingerprint, policy_version, approvers, consumed_at, state_digest, tool_digest
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT ev.event, upd.run_id, upd.tool_call_id, upd.tool_name, ev.actor, ev.fingerprint, ev.policy_version, ev.detail
      FROM upd JOIN closed ON true CROSS JOIN LATERAL (VALUES
        (1, 'edited', ${e.editor}::text, closed.fingerprint, closed.policy_version,
            jsonb_build_object('proposedArgs', ${JSON.stringify(e.edit.proposedArgs ?? null)}::jsonb, 'previousArgs', closed.args,
                               'editedArgs', upd.args, 'editor', ${e.editor}::text,
                               'fromActionId', closed.id, 'toActionId', upd.id, 'fingerprint', upd.fingerprint)
            || CASE WHEN upd.limit_hits IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('limits', upd.limit_hits) END),
        (2, CASE WHEN upd.status = 'approved' THEN 'approved' ELSE 'approval-recorded' END, ${e.editor}::text, upd.fingerprint, upd.policy_version,
            jsonb_build_object('approvals', jsonb_array_length(upd.approvals), 'quorum', upd.quorum)),
        (3, 'consumed', NULL, upd.fingerprint, upd.policy_version, NULL)) AS ev(n, event, actor, fingerprint, policy_version, detail)
      WHERE ev.n = 1
         OR (ev.n = 2 AND upd.approvals @> ${JSON.stringify([{ userId: e.editor }])}::jsonb)
         OR (ev.n = 3 AND EXISTS (SELECT 1 FROM lease))
      ORDER BY ev.n
    )
    ${r ? sql`SELECT w.*, ${recountHeld} AS limits_held FROM (SELECT 1) one LEFT JOIN (${selection}) w ON true` : selection}
  `.execute(db);
  const found = result.rows[0];
  if (!found || found.id === null) return found?.limits_held === false ? { limitsMoved: true } : undefined;
  const { leased, run_actions, spent_grant, previous, limits_held: _held, ...row } = found;
  if (!leased) return { row, previous };
  // The statement's snapshot holds the edited request as the call's latest row; the new one replaces it.
  const actions = (run_actions ?? []).map((a) => (a.tool_call_id === row.tool_call_id ? row : a));
  if (!actions.some((a) => a.id === row.id)) actions.push(row);
  return { row, previous, leased: { snapshot: leased, actions, ...(spent_grant ? { spentGrant: spent_grant } : {}) } };
}
