import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends, twoConnections } from '../helpers/needs.js';
import { someoneWaitsForALock } from '../helpers/row-locks.js';
import { countLimitUsage, MAX_COUNTER_ENTRIES, previewRecount, type UsageCount } from '../../src/db/limit-usage.js';
import type { Database } from '../../src/db/database.js';

const HOUR = 3_600_000;
let seq = 0;
const tool = () => `refund_${++seq}`;
const sumBy = (toolKey: string, subject: string, amount: number, windowMs = 24 * HOUR): UsageCount => ({
  toolKey,
  measure: `sum:amountCents@${windowMs}`,
  subject,
  windowMs,
  amount,
});

/** Moves every element of a counter back in time, as if its calls were made `ms` earlier. */
async function age(database: TestDatabase, toolKey: string, ms: number): Promise<void> {
  await sql`UPDATE limit_usage SET at = (SELECT array_agg(t - make_interval(secs => ${ms} / 1000.0)) FROM unnest(at) AS t) WHERE tool_key = ${toolKey}`.execute(database.db);
}

describeBackends('limit usage counters on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('adds each call to the window total; the same call counted again is not counted twice', async () => {
    const key = tool();
    expect(await countLimitUsage(database.db, 'run1/c1', [sumBy(key, 'U0BOB', 40000)])).toEqual([
      { toolKey: key, measure: `sum:amountCents@${24 * HOUR}`, subject: 'U0BOB', total: 40000 },
    ]);
    expect((await countLimitUsage(database.db, 'run1/c2', [sumBy(key, 'U0BOB', 35000)]))[0]!.total).toBe(75000);
    // The gate asked again for the same call (the policy changed after approval): still 75000.
    expect((await countLimitUsage(database.db, 'run1/c2', [sumBy(key, 'U0BOB', 35000)]))[0]!.total).toBe(75000);
  });

  it('previewing a call counted again gives the total with its element replaced, and changes nothing', async () => {
    const key = tool();
    await countLimitUsage(database.db, 'r/a', [sumBy(key, 'U0BOB', 40000)]);
    await countLimitUsage(database.db, 'r/b', [sumBy(key, 'U0BOB', 10000)]);
    // r/b edited from 100.00 to 900.00: 400.00 + 900.00, not 400.00 + 100.00 + 900.00.
    expect((await previewRecount(database.db, 'r/b', [sumBy(key, 'U0BOB', 90000)]))[0]!.total).toBe(130000);
    expect((await countLimitUsage(database.db, 'r/c', [sumBy(key, 'U0BOB', 0)]))[0]!.total).toBe(50000);
    // A counter the call has no row in yet (a limit added since) is created empty, ready to be locked.
    const fresh = tool();
    expect((await previewRecount(database.db, 'r/b', [sumBy(fresh, 'U0BOB', 5000)]))[0]!.total).toBe(5000);
    const row = await sql<{ n: number }>`SELECT cardinality(at) AS n FROM limit_usage WHERE tool_key = ${fresh}`.execute(database.db);
    expect(row.rows.map((r) => Number(r.n ?? 0))).toEqual([0]);
    expect((await countLimitUsage(database.db, 'r/d', [sumBy(fresh, 'U0BOB', 7000)]))[0]!.total).toBe(7000);
  });

  it('by requester keeps a total per requester; everyone together is one total', async () => {
    const key = tool();
    await countLimitUsage(database.db, 'r/a1', [sumBy(key, 'U0ALICE', 70000), { ...sumBy(key, '*', 70000) }]);
    const bob = await countLimitUsage(database.db, 'r/b1', [sumBy(key, 'U0BOB', 50000), { ...sumBy(key, '*', 50000) }]);
    expect(bob.find((t) => t.subject === 'U0BOB')!.total).toBe(50000);
    expect(bob.find((t) => t.subject === '*')!.total).toBe(120000);
  });

  it('calls older than the window no longer count and are pruned from the row', async () => {
    const key = tool();
    await countLimitUsage(database.db, 'r/1', [sumBy(key, 'U0BOB', 90000, HOUR)]);
    await age(database, key, 2 * HOUR);
    await countLimitUsage(database.db, 'r/2', [sumBy(key, 'U0BOB', 10000, HOUR)]);
    await age(database, key, 30 * 60_000);
    const totals = await countLimitUsage(database.db, 'r/3', [sumBy(key, 'U0BOB', 5000, HOUR)]);
    expect(totals[0]!.total).toBe(15000);
    const row = await sql<{ n: number }>`SELECT cardinality(at) AS n FROM limit_usage WHERE tool_key = ${key}`.execute(database.db);
    expect(Number(row.rows[0]!.n)).toBe(2);
  });

  it('a full counter merges its oldest calls instead of dropping them: the total never shrinks inside the window', async () => {
    const key = tool();
    const many = MAX_COUNTER_ENTRIES + 25;
    const subject = 'U0MANY';
    // Seed the row directly with more elements than a counter keeps, all inside the window.
    await sql`
      INSERT INTO limit_usage (tool_key, measure, subject, window_ms, at, amounts, calls)
      SELECT ${key}, ${`sum:amountCents@${24 * HOUR}`}, ${subject}, ${24 * HOUR},
             array_agg(now() - make_interval(secs => i) ORDER BY i DESC), array_agg(1::float8), array_agg(i::bigint)
      FROM generate_series(1, ${many}) AS i`.execute(database.db);
    const totals = await countLimitUsage(database.db, 'r/new', [sumBy(key, subject, 1)]);
    expect(totals[0]!.total).toBe(many + 1);
    const row = await sql<{ n: number }>`SELECT cardinality(at) AS n FROM limit_usage WHERE tool_key = ${key}`.execute(database.db);
    expect(Number(row.rows[0]!.n)).toBeLessThanOrEqual(MAX_COUNTER_ENTRIES + 1);
  });

  it('a call made while another is still uncommitted waits for it and counts it', twoConnections(backend), async () => {
    const other: Database = await database.reopen();
    try {
      const key = tool();
      let second: Promise<Array<{ total: number }>> | undefined;
      let settledEarly = false;
      await database.db.transaction().execute(async (trx) => {
        expect((await countLimitUsage(trx, 'first/1', [sumBy(key, 'U0BOB', 60000)]))[0]!.total).toBe(60000);
        // The first call is counted but not committed: a second call must not slip past it.
        second = countLimitUsage(other.db, 'second/1', [sumBy(key, 'U0BOB', 60000)]);
        void second.then(() => (settledEarly = true));
        await someoneWaitsForALock(database.db, { on: 'limit_usage', what: 'the second call did not wait for the first' });
        expect(settledEarly).toBe(false);
      });
      expect((await second!)[0]!.total).toBe(120000);
    } finally {
      await other.close();
    }
  });

  it('two calls on two connections at the same moment: the second always sees the first', twoConnections(backend), async () => {
    const other: Database = await database.reopen();
    try {
      for (let round = 0; round < 10; round++) {
        const key = tool();
        // Both statements are sent together (a barrier of one tick): under READ COMMITTED an
        // insert-then-sum would let both see 60000; the upsert makes one of them wait.
        const [a, b] = await Promise.all([
          countLimitUsage(database.db, `ra/${round}`, [sumBy(key, 'U0BOB', 60000)]),
          countLimitUsage(other.db, `rb/${round}`, [sumBy(key, 'U0BOB', 60000)]),
        ]);
        expect([a[0]!.total, b[0]!.total].sort((x, y) => x - y)).toEqual([60000, 120000]);
      }
      // The same with a counter that already holds a call: both updates serialise on its row.
      for (let round = 0; round < 10; round++) {
        const key = tool();
        await countLimitUsage(database.db, `seed/${round}`, [sumBy(key, 'U0BOB', 10000)]);
        const [a, b] = await Promise.all([
          countLimitUsage(database.db, `sa/${round}`, [sumBy(key, 'U0BOB', 60000)]),
          countLimitUsage(other.db, `sb/${round}`, [sumBy(key, 'U0BOB', 60000)]),
        ]);
        expect([a[0]!.total, b[0]!.total].sort((x, y) => x - y)).toEqual([70000, 130000]);
      }
    } finally {
      await other.close();
    }
  });
});
