import { type SuspendedRun, leasedColumns, pendingActionColumns, pendingActionFromJson, type LeasedRow, type PendingAction, type PendingActionJson, type SnapshotRow } from './rows.js';
import { sql } from 'kysely';
import type { Db } from './database.js';
import { auditJson, insertAuditJson, insertAuditRows, type AuditInput } from './audit.js';
import { CachedStatement } from './cached-statement.js';


/**
 * Takes a suspended run for resumption when nothing in it is still pending.
 * The conditional update is the lock: of two processes that both see the last
 * decision land, exactly one gets the row back.
 */
export async function takeRunLease(db: Db, runId: string): Promise<LeasedRow | undefined> {
  const result = await sql<LeasedRow>`
    UPDATE run_snapshots s SET status = 'running', claimed_at = now(), claim_epoch = s.claim_epoch + 1
    WHERE s.run_id = ${runId} AND s.status = 'suspended'
      AND NOT EXISTS (SELECT 1 FROM pending_actions WHERE run_id = ${runId} AND status = 'pending')
    RETURNING ${leasedColumns('s')}
  `.execute(db);
  return result.rows[0];
}

/** What a renewal found: still ours; the row moved on without a takeover (it paused or ended); or another process holds it. */
export type Renewal = 'held' | 'moved-on' | 'taken';

/**
 * Keeps a lease alive while its process continues the run; with `snapshot`,
 * also writes where the run stands (see checkpointStep), and `audit` with it
 * while the lease holds. Anything but `held`
 * means the lease is no longer this one and the caller must stop continuing
 * the run. `moved-on` (the row is gone, or paused under this same lease) is
 * what a renewal sent just before the run's own final write finds, so it is
 * told apart from `taken` (a newer lease) in the same statement, or by a
 * second read when the change committed while the statement waited for the row.
 */
export async function renewRunLease(db: Db, runId: string, epoch: number, snapshot?: unknown, audit: AuditInput[] = []): Promise<Renewal> {
  const result = await sql<{ held: boolean; epoch: number | null; running: boolean | null }>`
    WITH upd AS (
      UPDATE run_snapshots SET claimed_at = now()${snapshot === undefined ? sql`` : sql`, snapshot = ${JSON.stringify(snapshot)}::jsonb`}
      WHERE run_id = ${runId} AND status = 'running' AND claim_epoch = ${epoch}
      RETURNING run_id
    )${audit.length ? sql`, audit AS (${insertAuditRows(audit, sql`EXISTS (SELECT 1 FROM upd)`)})` : sql``}
    SELECT EXISTS (SELECT 1 FROM upd) AS held, s.claim_epoch AS epoch, s.status = 'running' AS running
    FROM (SELECT 1) one LEFT JOIN run_snapshots s ON s.run_id = ${runId}
  `.execute(db);
  const row = result.rows[0]!;
  if (row.held) return 'held';
  // Still ours and running as the statement saw the row, yet not updated: a change committed while
  // the statement waited for the row (the run's own final write, or a takeover). The statement's
  // own read cannot see that change, so the row is read again to tell which.
  const now = row.epoch === epoch && row.running ? await currentEpoch(db, runId) : row.epoch;
  return now === null || now === epoch ? 'moved-on' : 'taken';
}

async function currentEpoch(db: Db, runId: string): Promise<number | null> {
  const result = await sql<{ epoch: number }>`SELECT claim_epoch AS epoch FROM run_snapshots WHERE run_id = ${runId}`.execute(db);
  return result.rows[0]?.epoch ?? null;
}

/**
 * Puts a run that has never paused on record, `running` under a new lease
 * (see recordFreshRun), with the audit events it owes. Returns the lease's epoch;
 * undefined when the run id is already on record (the run paused, or this id
 * was used before), and nothing was written.
 */
export async function recordRunningRun(db: Db, write: SnapshotWrite, audit: AuditInput[] = []): Promise<number | undefined> {
  const insert = sql`
    INSERT INTO run_snapshots (run_id, root_run_id, parent_run_id, agent_id, thread_id, resource_id, status, snapshot, claimed_at)
    VALUES (${write.run_id}, ${write.root_run_id}, ${write.parent_run_id}, ${write.agent_id}, ${write.thread_id}, ${write.resource_id},
            'running', ${JSON.stringify(write.snapshot)}::jsonb, now())
    ON CONFLICT (run_id) DO NOTHING
    RETURNING claim_epoch`;
  const result = audit.length
    ? await sql<{ claim_epoch: number }>`
        WITH ins AS (${insert}), audit AS (${insertAuditRows(audit, sql`EXISTS (SELECT 1 FROM ins)`)})
        SELECT claim_epoch FROM ins`.execute(db)
    : await sql<{ claim_epoch: number }>`${insert}`.execute(db);
  return result.rows[0]?.claim_epoch;
}

/** Deletes a run's `running` row only while `epoch` is still its lease. */
const dropOwnRunningRow = (runId: string, epoch: number) =>
  sql`DELETE FROM run_snapshots WHERE run_id = ${runId} AND status = 'running' AND claim_epoch = ${epoch} RETURNING run_id`;

/**
 * Removes the record of a run that failed while this process held its lease:
 * the failure was reported, and a takeover would only repeat it (a model that
 * keeps failing would be retried, and the failure posted, every lease).
 */
export async function dropFailedRun(db: Db, runId: string, epoch: number): Promise<void> {
  await dropOwnRunningRow(runId, epoch).execute(db);
}

/**
 * A sub-agent run that failed while this process held its lease: its record
 * goes, and its parent's delegation is closed as `failed` with the error's
 * message as `reason`, so the parent can carry on as after a failed tool.
 * False when the lease is no longer this one (or the delegation is not
 * waiting): nothing was changed.
 */
export async function failDelegation(
  db: Db,
  failed: { runId: string; epoch: number; parentRunId: string; parentToolCallId: string; reason: string },
): Promise<boolean> {
  const result = await sql`
    WITH gone AS (${dropOwnRunningRow(failed.runId, failed.epoch)})
    UPDATE pending_actions SET status = 'failed', reason = ${failed.reason}, decided_at = now()
    WHERE run_id = ${failed.parentRunId} AND tool_call_id = ${failed.parentToolCallId}
      AND kind = 'delegation' AND status = 'pending' AND EXISTS (SELECT 1 FROM gone)
    RETURNING id
  `.execute(db);
  return result.rows.length > 0;
}

/** A run the sweep took, and what it was when taken: `running` (its process stopped mid-way) or a stranded `suspended` run. */
type StaleRow = LeasedRow & { taken_from: 'running' | 'suspended' };

/**
 * Leases runs of the given top-level agent that nobody is moving on:
 * - `running` whose lease has not been renewed for `leaseMs`: the process
 *   continuing them stopped;
 * - `suspended` with nothing left pending, its last request decided more than
 *   `leaseMs` ago: the decision was recorded, but the process that recorded it
 *   stopped before leasing the run (expiry, a superseded request, an answer,
 *   a sub-agent's end, or a vote that found a sibling still open). Without
 *   this, the run and its thread would wait for ever.
 * SKIP LOCKED and the renewed lease time let every instance sweep at once.
 */
export async function takeStaleRuns(db: Db, rootAgentId: string, leaseMs: number, limit: number): Promise<StaleRow[]> {
  const lease = sql`make_interval(secs => ${leaseMs} / 1000.0)`;
  const result = await sql<StaleRow>`
    WITH stale AS (
      SELECT s.run_id, s.status FROM run_snapshots s
      WHERE s.snapshot->'path'->>0 = ${rootAgentId}
        AND (
          (s.status = 'running' AND s.claimed_at < now() - ${lease})
          OR (s.status = 'suspended' AND s.suspended_at < now() - ${lease}
              AND NOT EXISTS (
                SELECT 1 FROM pending_actions p
                WHERE p.run_id = s.run_id AND (p.status = 'pending' OR COALESCE(p.decided_at, p.created_at) > now() - ${lease})))
        )
      ORDER BY s.claimed_at NULLS FIRST
      LIMIT ${limit}
      FOR NO KEY UPDATE OF s SKIP LOCKED
    )
    UPDATE run_snapshots s SET status = 'running', claimed_at = now(), claim_epoch = s.claim_epoch + 1
    FROM stale WHERE s.run_id = stale.run_id AND s.status = stale.status
    RETURNING ${leasedColumns('s')}, stale.status AS taken_from
  `.execute(db);
  return result.rows;
}

export async function findSnapshot(db: Db, runId: string): Promise<SnapshotRow | undefined> {
  return (await db
    .selectFrom('run_snapshots')
    .select(['run_id', 'root_run_id', 'parent_run_id', 'agent_id', 'thread_id', 'resource_id', 'status', 'snapshot', 'suspended_at'])
    .where('run_id', '=', runId)
    .executeTakeFirst()) as SnapshotRow | undefined;
}

export interface RunEnd {
  runId: string;
  /** The snapshot row exists only if the run was ever suspended. */
  hadSnapshot: boolean;
  /** For a sub-agent run: hand the result to the parent's waiting call. */
  parent?: { runId: string; toolCallId: string; result: unknown };
  /** Thread memory to append (root runs with memory). */
  memory?: { threadId: string; resourceId: string; messages: unknown[] };
  /** Audit events the run still owes (e.g. `executed`), written in the same statement. */
  audit?: AuditInput[];
  /** The answer of a top-level run, kept in run_results until a front end has shown it. */
  result?: { agentId: string; threadId: string | null; resourceId: string | null; text: string; finishReason: string };
}

/** Ends a run in one statement: snapshot gone, parent told, memory appended, answer kept for its front end. */
export async function endRun(db: Db, end: RunEnd): Promise<void> {
  const { parent, memory, audit, result } = end;
  const withMemory = memory !== undefined && memory.messages.length > 0;
  const withAudit = audit !== undefined && audit.length > 0;
  // Only the parts this run needs: a statement's unused CTEs still cost PostgreSQL their executor setup.
  const shape = `${end.hadSnapshot ? 'd' : ''}${parent ? 'p' : ''}${withMemory ? 'm' : ''}${withAudit ? 'a' : ''}${result ? 'r' : ''}`;
  if (shape === '') return;
  let messages: string | null = null;
  if (withMemory) {
    const numbered = new Array<{ i: number; message: unknown }>(memory.messages.length);
    for (let i = 0; i < numbered.length; i++) numbered[i] = { i, message: memory.messages[i] };
    messages = JSON.stringify(numbered);
  }
  await runEnd.execute(db, shape, {
    runId: end.runId,
    parentResult: parent ? JSON.stringify(parent.result ?? null) : null,
    parentRunId: parent?.runId ?? null,
    parentToolCallId: parent?.toolCallId ?? null,
    threadId: memory?.threadId ?? null,
    resourceId: memory?.resourceId ?? null,
    messages,
    audit: withAudit ? auditJson(audit) : null,
    resultAgentId: result?.agentId ?? null,
    resultThreadId: result?.threadId ?? null,
    resultResourceId: result?.resourceId ?? null,
    resultText: result?.text ?? null,
    resultFinishReason: result?.finishReason ?? null,
  });
}

/** endRun's statement; its shape names the parts present: d(elete), p(arent), m(emory), a(udit), r(esult). */
const runEnd = new CachedStatement<{
  runId: string;
  parentResult: string | null;
  parentRunId: string | null;
  parentToolCallId: string | null;
  threadId: string | null;
  resourceId: string | null;
  messages: string | null;
  audit: string | null;
  resultAgentId: string | null;
  resultThreadId: string | null;
  resultResourceId: string | null;
  resultText: string | null;
  resultFinishReason: string | null;
}>((p, shape) => {
  const parts = [
    shape.includes('d') ? sql`del AS (DELETE FROM run_snapshots WHERE run_id = ${p.runId} RETURNING run_id)` : undefined,
    shape.includes('p')
      ? sql`parent AS (
          UPDATE pending_actions
          SET status = 'resolved', resume_data = ${p.parentResult}::jsonb, decided_at = now()
          WHERE run_id = ${p.parentRunId} AND tool_call_id = ${p.parentToolCallId} AND status = 'pending' AND kind = 'delegation'
          RETURNING id)`
      : undefined,
    shape.includes('m')
      ? sql`mem AS (
          INSERT INTO thread_messages (thread_id, resource_id, message)
          SELECT ${p.threadId}, ${p.resourceId}, m.message
          FROM jsonb_to_recordset(${p.messages}::jsonb)
            AS m(i integer, message jsonb)
          ORDER BY m.i
          RETURNING id)`
      : undefined,
    shape.includes('a') ? sql`audit AS (${insertAuditJson(p.audit)})` : undefined,
    shape.includes('r')
      ? sql`res AS (
          INSERT INTO run_results (run_id, agent_id, thread_id, resource_id, text, finish_reason)
          VALUES (${p.runId}, ${p.resultAgentId}, ${p.resultThreadId}, ${p.resultResourceId}, ${p.resultText}, ${p.resultFinishReason})
          ON CONFLICT (run_id) DO NOTHING
          RETURNING run_id)`
      : undefined,
  ].filter((part) => part !== undefined);
  return sql`WITH ${sql.join(parts)} SELECT 1`;
});

/**
 * Top-level runs of an agent that wait on people, each with the calls it
 * waits on (for a supervisor: the inner calls of its sub-agents). Read from
 * storage, so it works the same after a restart.
 */
export async function listSuspendedRuns(
  db: Db,
  agentId: string,
  filter: { threadId?: string; resourceId?: string },
): Promise<SuspendedRun[]> {
  const rows = await sql<{
    run_id: string;
    status: 'suspended' | 'running';
    thread_id: string | null;
    resource_id: string | null;
    suspended_at: Date;
    action_id: number | null;
    tool_call_id: string | null;
    tool_name: string | null;
    kind: string | null;
    args: unknown;
    suspend_payload: unknown;
    path: string[] | null;
    action_run_id: string | null;
    fingerprint: string | null;
    expires_at: Date | null;
    requester: string | null;
  }>`
    SELECT s.run_id, s.status, s.thread_id, s.resource_id, s.suspended_at,
           p.id AS action_id, p.tool_call_id, p.tool_name, p.kind, p.args, p.suspend_payload, p.path,
           p.run_id AS action_run_id, p.fingerprint, p.expires_at, p.requester
    FROM run_snapshots s
    LEFT JOIN pending_actions p
      ON p.root_run_id = s.run_id AND p.status = 'pending' AND p.kind <> 'delegation'
    WHERE s.parent_run_id IS NULL AND s.agent_id = ${agentId}
      AND (${filter.threadId ?? null}::text IS NULL OR s.thread_id = ${filter.threadId ?? null})
      AND (${filter.resourceId ?? null}::text IS NULL OR s.resource_id = ${filter.resourceId ?? null})
    ORDER BY s.suspended_at, s.run_id, p.id
  `.execute(db);
  const runs = new Map<string, SuspendedRun>();
  for (const r of rows.rows) {
    let run = runs.get(r.run_id);
    if (!run) {
      run = {
        runId: r.run_id,
        status: r.status,
        threadId: r.thread_id,
        resourceId: r.resource_id,
        suspendedAt: r.suspended_at,
        toolCalls: [],
      };
      runs.set(r.run_id, run);
    }
    if (r.action_id !== null) {
      run.toolCalls.push({
        toolCallId: r.tool_call_id!,
        toolName: r.tool_name!,
        args: r.args,
        requiresApproval: r.kind === 'approval',
        suspendPayload: r.suspend_payload ?? undefined,
        path: r.path ?? [],
        runId: r.action_run_id!,
        actionId: r.action_id,
        fingerprint: r.fingerprint,
        expiresAt: r.expires_at,
        requester: r.requester,
      });
    }
  }
  return [...runs.values()];
}

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
  /** The cumulative limits the call went over (see migrations/020_limit_usage.sql); absent for most. */
  limit_hits?: unknown;
  /** Why a remembered approval matching the call did not cover it (see migrations/021_remembered_requirement.sql). */
  remembered_unused?: unknown;
  /** What the approval is bound to besides the arguments (see migrations/024_bound_approvals.sql); absent for most. */
  stated_reason?: string;
  preview?: unknown;
  tool_pin?: unknown;
  asked_again?: unknown;
  /** What started a run nobody requested (see migrations/023_request_caller.sql); absent for most. */
  caller?: string;
}

/** A `requested`/`suspended` audit row per human-facing call written by the \`acts\` CTE. */
const requestedAudit = sql`
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
      SELECT CASE kind WHEN 'approval' THEN 'requested' ELSE 'suspended' END,
             run_id, tool_call_id, tool_name, requester, fingerprint, policy_version,
             CASE WHEN limit_hits IS NULL AND remembered_unused IS NULL AND stated_reason IS NULL AND preview IS NULL
                       AND tool_pin IS NULL AND asked_again IS NULL AND caller IS NULL THEN NULL
                  ELSE jsonb_strip_nulls(jsonb_build_object('limits', limit_hits, 'rememberedUnused', remembered_unused,
                         'statedReason', stated_reason, 'stateDigest', preview->'stateDigest', 'previewFailed', preview->'failed',
                         'toolDigest', tool_pin->'digest', 'askedAgain', asked_again, 'caller', caller)) END
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
  const withAudit = audit.length > 0;
  const result = await suspension.execute<{ row: PendingActionJson }>(db, withAudit ? 'audit' : '', {
    snapshots: JSON.stringify(snapshots),
    actions: JSON.stringify(actions),
    audit: withAudit ? auditJson(audit) : null,
  });
  return result.rows.map((r) => pendingActionFromJson(r.row));
}

const suspension = new CachedStatement<{ snapshots: string; actions: string; audit: string | null }, '' | 'audit'>(
  (p, shape) => sql`
    WITH snaps AS (
      INSERT INTO run_snapshots (run_id, root_run_id, parent_run_id, agent_id, thread_id, resource_id, status, snapshot)
      SELECT s.run_id, s.root_run_id, s.parent_run_id, s.agent_id, s.thread_id, s.resource_id, 'suspended', s.snapshot
      FROM jsonb_to_recordset(${p.snapshots}::jsonb) AS s(
        run_id text, root_run_id text, parent_run_id text, agent_id text, thread_id text, resource_id text, snapshot jsonb)
      ON CONFLICT (run_id) DO UPDATE
        SET status = 'suspended', snapshot = EXCLUDED.snapshot, suspended_at = now(), claimed_at = NULL
      RETURNING run_id
    ), acts AS (
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint,
                                   suspend_payload, path, requester, policy_version, quorum, expires_at, limit_hits, remembered_unused,
                                   stated_reason, preview, tool_pin, asked_again, caller)
      SELECT a.run_id, a.root_run_id, a.tool_call_id, a.tool_name, a.kind, a.args, a.fingerprint,
             a.suspend_payload, a.path, a.requester, a.policy_version, a.quorum,
             CASE WHEN a.expires_in_ms IS NULL THEN NULL
                  ELSE now() + make_interval(secs => a.expires_in_ms / 1000.0) END,
             a.limit_hits, a.remembered_unused, a.stated_reason, a.preview, a.tool_pin, a.asked_again, a.caller
      FROM jsonb_to_recordset(${p.actions}::jsonb) AS a(
        run_id text, root_run_id text, tool_call_id text, tool_name text, kind text, args jsonb,
        fingerprint text, suspend_payload jsonb, path jsonb, requester text, policy_version text,
        quorum integer, expires_in_ms bigint, limit_hits jsonb, remembered_unused jsonb,
        stated_reason text, preview jsonb, tool_pin jsonb, asked_again jsonb, caller text)
      RETURNING ${pendingActionColumns()}
    )${
      shape === 'audit'
        ? sql`, earlier AS (
      ${insertAuditJson(p.audit)}
    ), audit AS (
      -- Reading \`earlier\` first makes what already happened (e.g. \`executed\`) precede the new requests.
      ${requestedAudit} AND (SELECT count(*) FROM earlier) >= 0 ORDER BY id
    )`
        : sql`, audit AS (${requestedAudit} ORDER BY id)`
    }
    SELECT row_to_json(acts) AS row FROM acts
  `,
);

/**
 * Gives up this process's lease on a run it is still continuing (a shutdown out of time): the
 * lease is dated far back, so the next sweep of any instance takes the run over from its last
 * record, as after a crash but without waiting out the lease. Only while the lease is still this
 * one; false when the run moved on meanwhile.
 */
export async function handOverRunLease(db: Db, runId: string, epoch: number): Promise<boolean> {
  const result = await sql`
    UPDATE run_snapshots SET claimed_at = to_timestamp(0)
    WHERE run_id = ${runId} AND status = 'running' AND claim_epoch = ${epoch}
  `.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}
