import { sql } from 'kysely';
import type { Database } from '../../src/db/database.js';

/** How many run records a run tree has left in storage: a finished, failed or aborted run must leave none for a sweep. */
export async function runRecordCount(database: Database, rootRunId: string): Promise<number> {
  const result = await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots WHERE root_run_id = ${rootRunId}`.execute(database.db);
  return result.rows[0]!.n;
}
