import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { PendingAction } from '../db/pending-action.js';

export const pendingActionColumnList = [
  'id', 'run_id', 'root_run_id', 'tool_call_id', 'tool_name', 'kind', 'args', 'fingerprint', 'suspend_payload',
  'path', 'status', 'requester', 'policy_version', 'quorum', 'approvals', 'expires_at', 'decided_by', 'decided_at',
  'reason', 'resume_data', 'created_at',
];
const columns = sql.raw(pendingActionColumnList.join(', '));

/**
 * The call a decision is about: the most recently suspended pending one
 * (of the given call, when a toolCallId is given); when nothing is pending,
 * the latest row, so a late decision can be told what already happened.
 * `runId` may be the top-level run or the sub-agent run that owns the call.
 */
export async function findDecisionTarget(
  db: Db,
  runId: string,
  toolCallId: string | undefined,
  kinds: Array<'approval' | 'suspension'>,
): Promise<PendingAction | undefined> {
  const result = await sql<PendingAction>`
    SELECT ${columns} FROM pending_actions
    WHERE (root_run_id = ${runId} OR run_id = ${runId})
      AND kind = ANY(${kinds}::text[])
      AND (${toolCallId ?? null}::text IS NULL OR tool_call_id = ${toolCallId ?? null})
    ORDER BY (status = 'pending') DESC, id DESC
    LIMIT 1
  `.execute(db);
  return result.rows[0];
}

export async function findAction(db: Db, id: number): Promise<PendingAction | undefined> {
  const result = await sql<PendingAction>`SELECT ${columns} FROM pending_actions WHERE id = ${id}`.execute(db);
  return result.rows[0];
}

export async function pendingActionsOfRoot(db: Db, rootRunId: string): Promise<PendingAction[]> {
  const result = await sql<PendingAction>`
    SELECT ${columns} FROM pending_actions
    WHERE root_run_id = ${rootRunId} AND status = 'pending' AND kind <> 'delegation'
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

export { columns as pendingActionColumns };
