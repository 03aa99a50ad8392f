import { sql } from 'kysely';
import { closeAction } from '../approvals/record-decision.js';
import { updateCard } from './cards/update-card.js';
import type { SlackContext } from './slack-context.js';

/**
 * Stops the runs waiting in a thread: every pending request of theirs becomes
 * `cancelled` (with an audit event) and their snapshots are dropped, so
 * nothing further runs and no model is asked to carry on. A run some other
 * instance has already claimed keeps going; its cancelled requests are denied.
 * Returns the ids of the requests it cancelled.
 */
export async function cancelThreadRuns(ctx: SlackContext, rootRunIds: string[], actor: string): Promise<number[]> {
  const cancelled: number[] = [];
  for (const rootRunId of rootRunIds) {
    const pending = await sql<{ id: number }>`
      SELECT id FROM pending_actions WHERE root_run_id = ${rootRunId} AND status = 'pending' ORDER BY id
    `.execute(ctx.db);
    for (const { id } of pending.rows) {
      const row = await closeAction(ctx.db, { actionId: id, status: 'cancelled', actor, reason: 'Cancelled in Slack.' });
      if (row) cancelled.push(row.id);
    }
    await sql`DELETE FROM run_snapshots WHERE root_run_id = ${rootRunId} AND status = 'suspended'`.execute(ctx.db);
  }
  for (const id of cancelled) await updateCard(ctx, id);
  return cancelled;
}
