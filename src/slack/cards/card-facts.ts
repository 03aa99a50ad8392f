import { sql } from 'kysely';
import type { PendingAction } from '../../db/pending-action.js';
import type { Db } from '../../db/database.js';

/**
 * Whether an approved call was stopped at the gate because what was about to
 * run no longer matched what was approved. The audit log is where the runtime
 * records that, so any instance can draw the card the same way.
 */
export async function wasBlocked(db: Db, action: PendingAction): Promise<boolean> {
  if (action.kind !== 'approval' || action.status !== 'approved') return false;
  const result = await sql<{ one: number }>`
    SELECT 1 AS one FROM audit_events
    WHERE run_id = ${action.run_id} AND tool_call_id = ${action.tool_call_id} AND event = 'blocked'
    LIMIT 1
  `.execute(db);
  return result.rows.length > 0;
}
