import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { openWorkCounts } from '../../src/db/open-work-counts.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';

describeBackends('open work for the metrics scrape on %s', (backend) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('counts pending requests by kind, overdue ones apart, and top-level runs by status; decided requests and sub-agent runs not', async () => {
    database = await createTestDatabase(backend);
    const { db } = database;
    const request = (runId: string, call: string, kind: string, status: string, expiresIn: string | null) => sql`
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, status, expires_at)
      VALUES (${runId}, ${runId}, ${call}, 'delete_record', ${kind}, '{}'::jsonb, ${status},
              ${expiresIn === null ? null : sql`now() + ${expiresIn}::interval`})`.execute(db);
    await request('r1', 'c1', 'approval', 'pending', '1 hour');
    await request('r1', 'c2', 'approval', 'pending', '-1 minute');
    await request('r2', 'c1', 'suspension', 'pending', null);
    await request('r3', 'c1', 'approval', 'approved', '1 hour');
    await request('r4', 'c1', 'delegation', 'pending', null);
    const run = (runId: string, parent: string | null, status: string) => sql`
      INSERT INTO run_snapshots (run_id, root_run_id, parent_run_id, agent_id, status, snapshot)
      VALUES (${runId}, ${parent ?? runId}, ${parent}, 'ops', ${status}, '{}'::jsonb)`.execute(db);
    await run('r1', null, 'suspended');
    await run('r2', null, 'suspended');
    await run('r5', null, 'running');
    await run('r4-sub', 'r4', 'suspended');

    const counts = await openWorkCounts(db);
    const sorted = <T extends object>(rows: T[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(sorted(counts.requests)).toEqual(
      sorted([
        { kind: 'approval', state: 'pending', count: 1 },
        { kind: 'approval', state: 'overdue', count: 1 },
        { kind: 'suspension', state: 'pending', count: 1 },
      ]),
    );
    expect(sorted(counts.runs)).toEqual(sorted([{ status: 'suspended', count: 2 }, { status: 'running', count: 1 }]));
  });
});
