import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inboxListPage, inboxRequests } from '../../src/db/inbox-requests.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { insertFinishedRequests } from '../helpers/finished-requests.js';

/**
 * Enough for the planner to prefer an index it can use: the plan test fails, never passes, when a
 * table is too small (it would scan it), so a larger history would check nothing more here; the
 * timings bench reads the lists over 50,000.
 */
const FINISHED = 5_000;

describeBackends('the inbox queries with 5,000 finished requests, on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    // 5,000 finished requests of many people (a few of them U0ME's), then a handful of open ones.
    await insertFinishedRequests(database.db, FINISHED);
    await sql`
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, path, status, requester, policy_version)
      SELECT 'open' || g, 'open' || g, 'c', 'delete_record', 'approval', '{}', repeat('b', 64), CASE WHEN g = 4 THEN '["other-agent"]' ELSE '["ops"]' END::jsonb,
             'pending', CASE WHEN g = 2 THEN 'U0ME' ELSE 'U0SOMEONE' END, 'v1'
      FROM generate_series(1, 4) g
    `.execute(database.db);
    await sql`ANALYZE pending_actions`.execute(database.db);
  }, 120_000);
  afterAll(async () => {
    await database?.close();
  });

  it('reads the person’s own requests newest first and their decisions most recent first, with totals', async () => {
    const inbox = await inboxRequests(database.db, 'ops', 'U0ME', { requested: 3, decided: 3 });
    expect(inbox.requested.map((r) => r.run_id)).toEqual(['open2', 'r5000', 'r4000']);
    expect(inbox.requestedTotal).toBe(6);
    expect(inbox.decided.map((r) => r.run_id)).toEqual(['r4900', 'r4200', 'r3500']);
    expect(inbox.decidedTotal).toBe(7);
    expect((await inboxRequests(database.db, 'ops', 'U0NOBODY', { requested: 3, decided: 3 })).requested).toEqual([]);
  });

  it('pages through either list with its total, past its end too', async () => {
    const first = await inboxListPage(database.db, 'ops', 'U0ME', 'decided', 0, 4);
    expect(first.rows.map((r) => r.run_id)).toEqual(['r4900', 'r4200', 'r3500', 'r2800']);
    expect(first.total).toBe(7);
    const rest = await inboxListPage(database.db, 'ops', 'U0ME', 'decided', 4, 4);
    expect(rest.rows.map((r) => r.run_id)).toEqual(['r2100', 'r1400', 'r700']);
    expect(rest.total).toBe(7);
    expect(await inboxListPage(database.db, 'ops', 'U0ME', 'requested', 50, 4)).toEqual({ rows: [], total: 6 });
    expect(await inboxListPage(database.db, 'ops', 'U0NOBODY', 'requested', 0, 4)).toEqual({ rows: [], total: 0 });
  });

  it('an edited request names the request of the same call that took its place', async () => {
    await sql`
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, path, status, requester, decided_by, decided_at, policy_version)
      VALUES ('ed', 'ed', 'c1', 'delete_record', 'approval', '{"id":"a"}', repeat('c', 64), '["ops"]', 'edited', 'U0EDITED', 'U0EDITOR', now(), 'v1'),
             ('ed', 'ed', 'c2', 'delete_record', 'approval', '{"id":"x"}', repeat('e', 64), '["ops"]', 'pending', 'U0EDITED', NULL, NULL, 'v1'),
             ('ed', 'ed', 'c1', 'delete_record', 'approval', '{"id":"b"}', repeat('d', 64), '["ops"]', 'approved', 'U0EDITED', 'U0EDITOR', now(), 'v1')
    `.execute(database.db);
    const inbox = await inboxRequests(database.db, 'ops', 'U0EDITED', { requested: 5, decided: 5 });
    const [replacement, other, edited] = inbox.requested;
    expect([edited!.status, other!.status, replacement!.status]).toEqual(['edited', 'pending', 'approved']);
    expect(edited!.replaced_by).toBe(replacement!.id);
    expect(replacement!.replaced_by).toBeNull();
    expect(other!.replaced_by).toBeNull();
    expect((await inboxRequests(database.db, 'ops', 'U0EDITOR', { requested: 5, decided: 5 })).decided.find((r) => r.status === 'edited')!.replaced_by).toBe(replacement!.id);
  });

  it('each list reads its own index, not the 5,000 finished rows', async () => {
    const plan = await sql<{ 'QUERY PLAN': string }>`
      EXPLAIN
      (SELECT id FROM pending_actions WHERE kind = 'approval' AND requester = 'U0ME' AND path->>0 = 'ops' ORDER BY id DESC LIMIT 10)
      UNION ALL
      (SELECT id FROM pending_actions WHERE kind = 'approval' AND decided_by = 'U0ME' AND path->>0 = 'ops' ORDER BY decided_at DESC, id DESC LIMIT 10)
    `.execute(database.db);
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('pending_actions_requester');
    expect(text).toContain('pending_actions_decided_by');
    expect(text).not.toMatch(/Seq Scan on pending_actions/);
  });
});
