import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';

/**
 * Makes what is on record an hour old, as a sweep finds it once every lease has lapsed and every
 * repair delay has passed: requests (written, decided), kept answers, and the leases of runs. Only
 * while no instance is working on a run (after its idle()): a lease aged under a run still going
 * on would be taken over.
 */
export async function ageRecords(db: Db): Promise<void> {
  await sql`UPDATE pending_actions SET created_at = now() - interval '1 hour', decided_at = decided_at - interval '1 hour'`.execute(db);
  await sql`UPDATE run_results SET finished_at = now() - interval '1 hour'`.execute(db);
  await sql`UPDATE run_snapshots SET claimed_at = now() - interval '1 hour'`.execute(db);
}

/**
 * A request as every instance finds it `ms` later: created and expiring that much earlier, as
 * waiting would leave it (reminders, escalation and expiry all go by those two times), without the
 * test waiting for the clock. `runId` takes the run's requests still pending.
 */
export async function ageRequest(db: Db, which: { actionId: number } | { runId: string }, ms: number): Promise<void> {
  const by = sql`make_interval(secs => ${ms} / 1000.0)`;
  const where = 'actionId' in which ? sql`id = ${which.actionId}` : sql`run_id = ${which.runId} AND status = 'pending'`;
  await sql`UPDATE pending_actions SET created_at = created_at - ${by}, expires_at = expires_at - ${by} WHERE ${where}`.execute(db);
}
