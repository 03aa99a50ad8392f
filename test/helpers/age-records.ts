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
