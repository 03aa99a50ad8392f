import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';

/**
 * `count` finished requests (approved, every third declined) of 500 people, spread over the last
 * `count` seconds, whatever `count` (a multiple of 50): five of them asked by U0ME and seven
 * decided by U0ME, spread evenly (rows count/5, 2·count/5, … and 7·count/50, 14·count/50, …).
 * The history an inbox read must not slow down on (the inbox test checks its plans, the timings
 * bench times it).
 */
export async function insertFinishedRequests(db: Kysely<DB>, count: number): Promise<void> {
  if (count % 50 !== 0) throw new RangeError(`insertFinishedRequests: count must be a multiple of 50, got ${count}`);
  const askedEvery = count / 5;
  const decidedEvery = (count / 50) * 7;
  await sql`
    INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, path, status, requester, decided_by, decided_at, policy_version, created_at)
    SELECT 'r' || g, 'r' || g, 'c', 'delete_record', 'approval', jsonb_build_object('id', g), repeat('a', 64), '["ops"]',
           CASE WHEN g % 3 = 0 THEN 'declined' ELSE 'approved' END,
           CASE WHEN g % ${askedEvery}::int = 0 THEN 'U0ME' ELSE 'U' || (g % 500) END,
           CASE WHEN g % ${decidedEvery}::int = 0 THEN 'U0ME' ELSE 'U0OTHER' END,
           now() - (${count} - g) * interval '1 second', 'v1', now() - interval '2 days'
    FROM generate_series(1, ${count}) g
  `.execute(db);
}
