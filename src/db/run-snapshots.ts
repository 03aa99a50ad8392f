import { sql, type Selectable } from 'kysely';
import type { RunSnapshotsTable } from './schema.js';
import type { Db } from './database.js';
import type { SnapshotWrite } from './persist-suspension.js';
import { insertAuditRows, type AuditInput } from '../approvals/audit.js';

/** A run_snapshots row as read back (the claim's time and epoch are bookkeeping, not state). */
export type SnapshotRow = Omit<Selectable<RunSnapshotsTable>, 'claimed_at' | 'claim_epoch'>;

/** A row as a claim returns it: `claim_epoch` identifies this claim until the next one. */
export type ClaimedRow = SnapshotRow & { claim_epoch: number };

/** What every claim returns (a ClaimedRow), from the claimed table aliased `s`; the decision's claim CTE uses it too. */
export const claimedColumnsOfS =
  's.run_id, s.root_run_id, s.parent_run_id, s.agent_id, s.thread_id, s.resource_id, s.status, s.snapshot, s.suspended_at, s.claim_epoch';
const claimedColumns = sql.raw(claimedColumnsOfS);

/**
 * Takes a suspended run for resumption when nothing in it is still pending.
 * The conditional update is the lock: of two processes that both see the last
 * decision land, exactly one gets the row back.
 */
export async function claimRun(db: Db, runId: string): Promise<ClaimedRow | undefined> {
  const result = await sql<ClaimedRow>`
    UPDATE run_snapshots s SET status = 'running', claimed_at = now(), claim_epoch = s.claim_epoch + 1
    WHERE s.run_id = ${runId} AND s.status = 'suspended'
      AND NOT EXISTS (SELECT 1 FROM pending_actions WHERE run_id = ${runId} AND status = 'pending')
    RETURNING ${claimedColumns}
  `.execute(db);
  return result.rows[0];
}

/** What a renewal found: still ours; the row moved on without a takeover (it paused or ended); or another process holds it. */
export type Renewal = 'held' | 'moved-on' | 'taken';

/**
 * Keeps a claim alive while its process continues the run; with `snapshot`,
 * also writes where the run stands (see checkpointStep), and `audit` with it
 * while the claim holds. Anything but `held`
 * means the claim is no longer this one and the caller must stop continuing
 * the run. `moved-on` (the row is gone, or paused under this same claim) is
 * what a renewal sent just before the run's own final write finds, so it is
 * told apart from `taken` (a newer claim) in the same statement.
 */
export async function renewClaim(db: Db, runId: string, epoch: number, snapshot?: unknown, audit: AuditInput[] = []): Promise<Renewal> {
  const result = await sql<{ held: boolean; epoch: number | null }>`
    WITH upd AS (
      UPDATE run_snapshots SET claimed_at = now()${snapshot === undefined ? sql`` : sql`, snapshot = ${JSON.stringify(snapshot)}::jsonb`}
      WHERE run_id = ${runId} AND status = 'running' AND claim_epoch = ${epoch}
      RETURNING run_id
    )${audit.length ? sql`, audit AS (${insertAuditRows(audit, sql`EXISTS (SELECT 1 FROM upd)`)})` : sql``}
    SELECT EXISTS (SELECT 1 FROM upd) AS held, (SELECT claim_epoch FROM run_snapshots WHERE run_id = ${runId}) AS epoch
  `.execute(db);
  const row = result.rows[0]!;
  if (row.held) return 'held';
  return row.epoch === null || row.epoch === epoch ? 'moved-on' : 'taken';
}

/**
 * Puts a run that has never paused on record, `running` under a new claim
 * (see putOnRecord), with the audit events it owes. Returns the claim's epoch;
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

/** Deletes a run's `running` row only while `epoch` is still its claim. */
const dropOwnRunningRow = (runId: string, epoch: number) =>
  sql`DELETE FROM run_snapshots WHERE run_id = ${runId} AND status = 'running' AND claim_epoch = ${epoch} RETURNING run_id`;

/**
 * Removes the record of a run that failed while this process held its claim:
 * the failure was reported, and a takeover would only repeat it (a model that
 * keeps failing would be retried, and the failure posted, every lease).
 */
export async function dropFailedRun(db: Db, runId: string, epoch: number): Promise<void> {
  await dropOwnRunningRow(runId, epoch).execute(db);
}

/**
 * A sub-agent run that failed while this process held its claim: its record
 * goes, and its parent's delegation is closed as `failed` with the error's
 * message as `reason`, so the parent can carry on as after a failed tool.
 * False when the claim is no longer this one (or the delegation is not
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
export type StaleRow = ClaimedRow & { taken_from: 'running' | 'suspended' };

/**
 * Claims runs of the given top-level agent that nobody is moving on:
 * - `running` whose claim has not been renewed for `leaseMs`: the process
 *   continuing them stopped;
 * - `suspended` with nothing left pending, its last request decided more than
 *   `leaseMs` ago: the decision was recorded, but the process that recorded it
 *   stopped before claiming the run (expiry, a superseded request, an answer,
 *   a sub-agent's end, or a vote that found a sibling still open). Without
 *   this, the run and its thread would wait for ever.
 * SKIP LOCKED and the renewed claim time let every instance sweep at once.
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
    RETURNING ${claimedColumns}, stale.status AS taken_from
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
  // Only the parts this run needs: a statement's unused CTEs still cost PostgreSQL their executor setup.
  const parts = [
    end.hadSnapshot ? sql`del AS (DELETE FROM run_snapshots WHERE run_id = ${end.runId} RETURNING run_id)` : undefined,
    parent
      ? sql`parent AS (
          UPDATE pending_actions
          SET status = 'resolved', resume_data = ${JSON.stringify(parent.result ?? null)}::jsonb, decided_at = now()
          WHERE run_id = ${parent.runId} AND tool_call_id = ${parent.toolCallId} AND status = 'pending' AND kind = 'delegation'
          RETURNING id)`
      : undefined,
    memory?.messages.length
      ? sql`mem AS (
          INSERT INTO thread_messages (thread_id, resource_id, message)
          SELECT ${memory.threadId}, ${memory.resourceId}, m.message
          FROM jsonb_to_recordset(${JSON.stringify(memory.messages.map((m, i) => ({ i, message: m })))}::jsonb)
            AS m(i integer, message jsonb)
          ORDER BY m.i
          RETURNING id)`
      : undefined,
    audit?.length ? sql`audit AS (${insertAuditRows(audit)})` : undefined,
    result
      ? sql`res AS (
          INSERT INTO run_results (run_id, agent_id, thread_id, resource_id, text, finish_reason)
          VALUES (${end.runId}, ${result.agentId}, ${result.threadId}, ${result.resourceId}, ${result.text}, ${result.finishReason})
          ON CONFLICT (run_id) DO NOTHING
          RETURNING run_id)`
      : undefined,
  ].filter((p) => p !== undefined);
  if (parts.length === 0) return;
  await sql`WITH ${sql.join(parts)} SELECT 1`.execute(db);
}
