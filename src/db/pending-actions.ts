import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';
import { leasedColumns, pendingActionColumns, pendingActionFromJson, type LeasedRow, type PendingAction, type PendingActionJson, type SpentGrant } from './rows.js';
import { CachedStatement } from './cached-statement.js';
import { rememberCtes, rememberedSelect, type RememberedRequirement } from './remembered-grants.js';

/**
 * Moves approval requests of `rootAgentId` past their time to `expired`, with
 * their audit events, in one statement; SKIP LOCKED lets every instance sweep
 * at once without two of them taking the same row.
 */
export async function expireDueRequests(db: Db, rootAgentId: string, limit: number): Promise<PendingAction[]> {
  const result = await sql<PendingAction>`
    WITH due AS (
      SELECT id FROM pending_actions
      WHERE status = 'pending' AND kind = 'approval' AND expires_at <= now() AND path->>0 = ${rootAgentId}
      ORDER BY expires_at
      LIMIT ${limit}
      FOR NO KEY UPDATE SKIP LOCKED
    ), upd AS (
      UPDATE pending_actions p SET status = 'expired', decided_at = now()
      FROM due WHERE p.id = due.id
      RETURNING ${pendingActionColumns('p')}
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, fingerprint, policy_version, detail)
      SELECT 'expired', run_id, tool_call_id, tool_name, fingerprint, policy_version,
             jsonb_build_object('expiresAt', expires_at)
      FROM upd
    )
    SELECT * FROM upd ORDER BY id
  `.execute(db);
  return result.rows;
}


const columns = pendingActionColumns();

/**
 * The call a decision is about: the most recently suspended pending one
 * (of the given call, when a toolCallId is given); when nothing is pending,
 * the latest row, so a late decision can be told what already happened.
 * `runId` may be the top-level run or the sub-agent run that owns the call.
 *
 * The two ways of naming the run are two index lookups (pending_actions_root, then
 * pending_actions_run_call for the calls of a sub-agent run named by its own id), not one
 * `root_run_id = … OR run_id = …`: the statement is prepared once per connection, and the
 * generic plan PostgreSQL keeps for it is made while the table is new and has no statistics.
 * Costed that way, a BitmapOr of the two indexes lost to a sequential scan of the whole table,
 * which every decision then paid for as the table grew (about 40 pages read per call after
 * 1,300 requests); costed the same way, each single-index lookup is cheaper than a scan.
 */
export async function findDecisionTarget(
  db: Db,
  runId: string,
  toolCallId: string | undefined,
  kinds: Array<'approval' | 'suspension'>,
): Promise<PendingAction | undefined> {
  const result = await decisionTarget.execute<{ row: PendingActionJson }>(db, '', { runId, kinds, toolCallId: toolCallId ?? null });
  const found = result.rows[0];
  return found && pendingActionFromJson(found.row);
}

const decisionTarget = new CachedStatement<{ runId: string; kinds: string[]; toolCallId: string | null }>(
  (p) => sql`
    SELECT row_to_json(target) AS row FROM (
      SELECT * FROM (
        SELECT ${columns} FROM pending_actions
        WHERE root_run_id = ${p.runId}
          AND kind = ANY(${p.kinds}::text[])
          AND (${p.toolCallId}::text IS NULL OR tool_call_id = ${p.toolCallId})
        UNION ALL
        SELECT ${columns} FROM pending_actions
        WHERE run_id = ${p.runId} AND root_run_id <> ${p.runId}
          AND kind = ANY(${p.kinds}::text[])
          AND (${p.toolCallId}::text IS NULL OR tool_call_id = ${p.toolCallId})
      ) mine
      ORDER BY (status = 'pending') DESC, id DESC
      LIMIT 1) target
  `,
);

export async function findAction(db: Db, id: number): Promise<PendingAction | undefined> {
  const result = await sql<PendingAction>`SELECT ${columns} FROM pending_actions WHERE id = ${id}`.execute(db);
  return result.rows[0];
}

/** Every pending row of a top-level run's tree, in the order they were asked: its delegations' too (see waiting-calls.ts). */
export async function pendingActionsOfRoot(db: Db, rootRunId: string): Promise<PendingAction[]> {
  const result = await sql<PendingAction>`
    SELECT ${columns} FROM pending_actions
    WHERE root_run_id = ${rootRunId} AND status = 'pending'
    ORDER BY id
  `.execute(db);
  return result.rows;
}

/** Latest row per tool call of a run: what resuming the run acts on. */
export async function latestActionsOfRun(db: Db, runId: string): Promise<PendingAction[]> {
  const result = await sql<PendingAction>`
    SELECT DISTINCT ON (tool_call_id) ${columns} FROM pending_actions
    WHERE run_id = ${runId}
    ORDER BY tool_call_id, id DESC
  `.execute(db);
  return result.rows;
}

/** The latest approval request of one call (of the run that owns it), e.g. the one an approved call was blocked under. */
export async function latestApprovalId(db: Db, runId: string, toolCallId: string): Promise<number | undefined> {
  const result = await sql<{ id: number }>`
    SELECT id FROM pending_actions
    WHERE run_id = ${runId} AND tool_call_id = ${toolCallId} AND kind = 'approval'
    ORDER BY id DESC LIMIT 1
  `.execute(db);
  return result.rows[0]?.id;
}


/** A decision that ended the run's last wait also leases the run, in the same statement. */
export interface LeasedRun {
  snapshot: LeasedRow;
  /** Latest row per tool call of the leased run, as resuming needs them; read when resuming if absent. */
  actions?: PendingAction[];
  /**
   * The grant this decision created, already spent because this process holds
   * the run: only the leaseholder may execute, so nobody else can use it, and
   * spending it here saves a commit between approve and execute. The caller
   * must still compare its fingerprint with the arguments about to run.
   */
  spentGrant?: SpentGrant;
  /**
   * Taken over from a process that stopped while continuing the run: what it
   * may already have run (an approved call, an answered suspension) is reported
   * to the model as interrupted instead of being run again.
   */
  recovered?: true;
}


export interface DecisionWrite {
  row: PendingAction;
  leased?: LeasedRun;
  /** The remembered grant this vote created (the vote asked to remember and the request was approved). */
  remembered?: { id: number; expires_at: string };
}

/**
 * A CTE for a decision statement whose CTE \`upd\` holds the decided row (one at most): if
 * \`decided\` holds for it and nothing else of the run is still pending (as of this statement),
 * take the run. Saves the separate lease round trip on the common path; when another call of the
 * run was decided at the same moment neither statement leases, and the caller falls back to
 * takeRunLease. \`otherThan\`: the request left out of "still pending" (the statement's snapshot
 * still shows the decided one pending).
 *
 * Written so that the plan goes by the run's id whatever the planner believes of the tables: a
 * connection keeps one plan per statement, and on a new install (tables nearly empty, never
 * analyzed) a join with \`upd\` became a scan of every suspended run and a look at every open
 * request of every run, kept as the tables filled up. The run's id is worked out first, once (a
 * scalar subquery), and the run's other open requests are a subplan (\`OFFSET 0\` keeps the planner
 * from turning the \`NOT EXISTS\` into an anti-join), so both lookups are index conditions.
 */
export function leaseDecidedRun(decided: RawBuilder<unknown>, otherThan: RawBuilder<unknown>) {
  return sql`
    lease AS (
      UPDATE run_snapshots s SET status = 'running', claimed_at = now(), claim_epoch = s.claim_epoch + 1
      WHERE s.status = 'suspended' AND s.run_id = (
        SELECT upd.run_id FROM upd
        WHERE ${decided}
          AND NOT EXISTS (SELECT 1 FROM pending_actions p WHERE p.run_id = upd.run_id AND p.status = 'pending' AND p.id <> ${otherThan} OFFSET 0))
      RETURNING ${leasedColumns('s')}
    )`;
}

const leaseCte = leaseDecidedRun(sql`upd.status <> 'pending'`, sql`upd.id`);

/**
 * The decided row (one json column, see pendingActionFromJson), the leased snapshot (or null)
 * and, when leased, what resuming needs. The decided row itself stands in run_actions as a JSON
 * null: the statement's snapshot still shows it pending, so toDecisionWrite puts in what upd
 * wrote, and it is neither built nor parsed twice.
 */
const selectDecision = sql`
    SELECT row_to_json(upd) AS row,
      (SELECT to_jsonb(lease.*) FROM lease) AS leased,
      (SELECT jsonb_agg(CASE WHEN x.id = upd.id THEN 'null'::jsonb ELSE to_jsonb(x.*) END) FROM (
         SELECT DISTINCT ON (tool_call_id) ${pendingActionColumns()} FROM pending_actions
         WHERE run_id = upd.run_id AND EXISTS (SELECT 1 FROM lease)
         ORDER BY tool_call_id, id DESC) x) AS run_actions
`;

interface DecisionResultRow {
  row: PendingActionJson;
  leased: LeasedRow | null;
  /** null in place of the decided row (see selectDecision). */
  run_actions: Array<PendingAction | null> | null;
  spent_grant?: SpentGrant | null;
  remembered?: { id: number; expires_at: string } | null;
}

function toDecisionWrite(result: DecisionResultRow | undefined): DecisionWrite | undefined {
  if (!result) return undefined;
  const { leased, run_actions, spent_grant, remembered: made } = result;
  const row = pendingActionFromJson(result.row);
  const remembered = made ? { remembered: made } : {};
  if (!leased) return { row, ...remembered };
  const actions = (run_actions ?? []).map((a) => a ?? row);
  return { row, leased: { snapshot: leased, actions, ...(spent_grant ? { spentGrant: spent_grant } : {}) }, ...remembered };
}

/**
 * Adds one approver's vote, exactly once. The row moves out of `pending` only
 * when the quorum is reached, and in that same statement the single-use grant
 * and the audit event are written. The WHERE clause is the whole concurrency
 * story: a second click, a second instance or a stale policy finds no row.
 */
export async function recordApprovalVote(
  db: Db,
  vote: { actionId: number; actor: string; policyVersion: string; grantTtlMs: number; remember?: { forMs: number; satisfied: RememberedRequirement }; reason?: string },
): Promise<DecisionWrite | undefined> {
  const remember = vote.remember;
  // A reason (required by some policies) rides on the vote itself and on its audit event.
  const ballot: { userId: string; at: string; remember?: true; reason?: string } = { userId: vote.actor, at: new Date().toISOString() };
  if (remember) ballot.remember = true;
  if (vote.reason !== undefined) ballot.reason = vote.reason;
  const params: VoteParams = {
    ballot: JSON.stringify([ballot]),
    voter: JSON.stringify([{ userId: vote.actor }]),
    actionId: vote.actionId,
    actor: vote.actor,
    policyVersion: vote.policyVersion,
    grantTtlMs: vote.grantTtlMs,
    reason: vote.reason ?? null,
  };
  const result = remember
    ? // Remembering is rare, and its CTEs take values of their own: built for this vote alone.
      await voteSql(params, { forMs: remember.forMs, satisfied: remember.satisfied }).execute(db)
    : await voteStatement.execute<DecisionResultRow>(db, '', params);
  return toDecisionWrite(result.rows[0] as DecisionResultRow | undefined);
}

interface VoteParams extends Record<string, unknown> {
  ballot: string;
  voter: string;
  actionId: number;
  actor: string;
  policyVersion: string;
  grantTtlMs: number;
  reason: string | null;
}

function voteSql(p: VoteParams, remember?: { forMs: number; satisfied: RememberedRequirement }) {
  return sql<DecisionResultRow>`
    WITH upd AS (
      UPDATE pending_actions SET
        approvals  = approvals || ${p.ballot}::jsonb,
        status     = CASE WHEN jsonb_array_length(approvals) + 1 >= quorum THEN 'approved' ELSE 'pending' END,
        decided_by = CASE WHEN jsonb_array_length(approvals) + 1 >= quorum THEN ${p.actor} ELSE NULL END,
        decided_at = CASE WHEN jsonb_array_length(approvals) + 1 >= quorum THEN now() ELSE NULL END
      WHERE id = ${p.actionId} AND kind = 'approval' AND status = 'pending'
        AND policy_version = ${p.policyVersion}
        AND (expires_at IS NULL OR expires_at > now())
        AND NOT approvals @> ${p.voter}::jsonb
      RETURNING ${columns}
    ), ${leaseCte}, grant_row AS (
      INSERT INTO approval_grants (action_id, run_id, tool_call_id, fingerprint, approvers, requester, policy_version,
                                   expires_at, consumed_at, state_digest, tool_digest)
      SELECT id, run_id, tool_call_id, fingerprint, (SELECT jsonb_agg(a->'userId') FROM jsonb_array_elements(approvals) a),
             requester, policy_version, now() + make_interval(secs => ${p.grantTtlMs} / 1000.0),
             CASE WHEN EXISTS (SELECT 1 FROM lease) THEN now() END,
             -- Bound to the state and tool definition the request was asked with (agent/bound-call.ts).
             preview->>'stateDigest', tool_pin->>'digest'
      FROM upd WHERE status = 'approved'
      RETURNING id, action_id, fingerprint, policy_version, approvers, consumed_at, state_digest, tool_digest
    ), audit AS (
      -- With the run leased, the grant is spent here for the call that runs next: \`consumed\` is on
      -- record before it can run (a \`blocked\` follows if what is about to run does not match).
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT e.event, upd.run_id, upd.tool_call_id, upd.tool_name, e.actor, upd.fingerprint, upd.policy_version, e.detail
      FROM upd CROSS JOIN LATERAL (VALUES
        (1, CASE WHEN upd.status = 'approved' THEN 'approved' ELSE 'approval-recorded' END, ${p.actor}::text,
            jsonb_build_object('approvals', jsonb_array_length(upd.approvals), 'quorum', upd.quorum)
              || CASE WHEN ${p.reason}::text IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('reason', ${p.reason}::text) END),
        (2, 'consumed', NULL, NULL)) AS e(n, event, actor, detail)
      WHERE e.n = 1 OR EXISTS (SELECT 1 FROM lease)
      ORDER BY e.n
    )${remember ? sql`, ${rememberCtes(p.actor, remember.forMs, remember.satisfied)}` : sql``}
    ${selectDecision},
      (SELECT to_jsonb(g.*) - 'consumed_at' FROM grant_row g WHERE g.consumed_at IS NOT NULL) AS spent_grant${remember ? sql`, ${rememberedSelect}` : sql``}
    FROM upd
  `;
}

/** A vote without remembering: the statement of every approve click. */
const voteStatement = new CachedStatement<VoteParams>((p) => voteSql(p));

export async function recordDecline(
  db: Db,
  decline: { actionId: number; actor: string; reason: string | null; policyVersion: string },
): Promise<DecisionWrite | undefined> {
  const result = await sql<DecisionResultRow>`
    WITH upd AS (
      UPDATE pending_actions SET status = 'declined', decided_by = ${decline.actor}, decided_at = now(),
        reason = ${decline.reason}
      WHERE id = ${decline.actionId} AND kind = 'approval' AND status = 'pending'
        AND policy_version = ${decline.policyVersion}
        AND (expires_at IS NULL OR expires_at > now())
      RETURNING ${columns}
    ), ${leaseCte}, audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT 'declined', run_id, tool_call_id, tool_name, ${decline.actor}, fingerprint, policy_version,
             CASE WHEN reason IS NULL THEN NULL ELSE jsonb_build_object('reason', reason) END
      FROM upd
    )
    ${selectDecision}
    FROM upd
  `.execute(db);
  return toDecisionWrite(result.rows[0]);
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

/** What a cancelled top-level run leaves in its thread's memory (see agent/cancel-runs.ts). */
export interface CancelledMemory {
  runId: string;
  threadId: string;
  resourceId: string;
  messages: unknown[];
}

/**
 * Cancels every pending request of these top-level runs and drops their
 * suspended snapshots, with an audit event per request, in one statement. A
 * decision landing at the same moment either comes first (its run goes on if
 * the decision leased it, or is dropped with the rest when another of its
 * requests was still open) or finds its request cancelled; never half of a run
 * cancelled and the rest going on. A run already leased keeps going. The
 * `memory` of a run is appended to its thread's only if this statement dropped
 * it. Returns the ids of the requests it cancelled: none when a decision came first.
 */
export async function cancelPendingRuns(db: Db, rootRunIds: string[], actor: string, reason: string, memory: readonly CancelledMemory[] = []): Promise<number[]> {
  if (rootRunIds.length === 0) return [];
  const roots = sql.join(rootRunIds.map((id) => sql`${id}`));
  // A run's memory is kept only if this statement is the one that stopped it (its snapshot dropped here).
  const mem = memory.length
    ? sql`, mem AS (
      INSERT INTO thread_messages (thread_id, resource_id, message)
      SELECT m.thread_id, m.resource_id, m.message
      FROM jsonb_to_recordset(${JSON.stringify(memory.flatMap((r, n) => r.messages.map((message, i) => ({ n, i, run_id: r.runId, thread_id: r.threadId, resource_id: r.resourceId, message }))))}::jsonb)
        AS m(n integer, i integer, run_id text, thread_id text, resource_id text, message jsonb)
      WHERE m.run_id IN (SELECT run_id FROM gone)
      ORDER BY m.n, m.i
      RETURNING id)`
    : sql``;
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
      DELETE FROM run_snapshots WHERE root_run_id IN (${roots}) AND status = 'suspended' RETURNING run_id
    )${mem}
    SELECT id FROM upd ORDER BY id
  `.execute(db);
  return result.rows.map((r) => r.id);
}

