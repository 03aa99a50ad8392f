/**
 * The tests' own databases (test/helpers/db.ts): a PGlite instance or a PostgreSQL schema a closed
 * test database leaves is handed to the next one of the worker only as fresh as a new one, and
 * never while what the closed one's test left behind can still reach it.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { needing } from '../helpers/needs.js';
import setupPooledSchemas, { HOST } from '../helpers/pooled-schemas.js';

/** One run snapshot, enough to tell a table that was emptied from one that was not. */
async function addRun(db: TestDatabase['db'], runId: string): Promise<void> {
  await db
    .insertInto('run_snapshots')
    .values({ run_id: runId, root_run_id: runId, parent_run_id: null, agent_id: 'a', thread_id: null, resource_id: null, status: 'suspended', snapshot: JSON.stringify({}), suspended_at: new Date() })
    .execute();
}

const runs = async (database: TestDatabase) => (await database.db.selectFrom('run_snapshots').select('run_id').execute()).map((r) => r.run_id);

describe('the tests’ PGlite databases', () => {
  it('the instance is handed on: the next database starts empty, its sequences and session as new', async () => {
    const first = await createTestDatabase('pglite');
    await addRun(first.db, 'left-behind');
    const { rows: sequences } = await sql<{ name: string }>`SELECT sequencename AS name FROM pg_sequences WHERE schemaname = current_schema()`.execute(first.db);
    expect(sequences.length).toBeGreaterThan(0);
    for (const { name } of sequences) await sql`SELECT nextval(${name}::regclass)`.execute(first.db);
    await sql`SET statement_timeout = '1234ms'`.execute(first.db);
    const { rows: before } = await sql<{ xid: string }>`SELECT txid_current()::text AS xid`.execute(first.db);
    await first.close();

    const second = await createTestDatabase('pglite');
    try {
      // The same instance (its transaction ids go on from the first's; a newly loaded one starts
      // again from the tarball's), and nothing of the first's test in it.
      const { rows: after } = await sql<{ xid: string }>`SELECT txid_current()::text AS xid`.execute(second.db);
      expect(BigInt(after[0]!.xid)).toBeGreaterThan(BigInt(before[0]!.xid));
      expect(await runs(second)).toEqual([]);
      const used = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_sequences WHERE schemaname = current_schema() AND last_value IS NOT NULL`.execute(second.db);
      expect(used.rows[0]!.n).toBe(0);
      const { rows } = await sql<{ timeout: string; path: string }>`SELECT current_setting('statement_timeout') AS timeout, current_setting('search_path') AS path`.execute(second.db);
      expect(rows[0]).toEqual({ timeout: '0', path: second.schema });
    } finally {
      await second.close();
    }
  });

  it('a closed database’s handle fails as a closed instance would, and cannot reach the next test’s rows', async () => {
    const first = await createTestDatabase('pglite');
    const leaked = first.db;
    await first.close();
    const second = await createTestDatabase('pglite');
    try {
      await addRun(second.db, 'mine');
      await expect(leaked.selectFrom('run_snapshots').selectAll().execute()).rejects.toThrow();
      await expect(addRun(leaked, 'late')).rejects.toThrow();
      expect(await runs(second)).toEqual(['mine']);
    } finally {
      await second.close();
    }
  });

  it('an instance a test changed the definitions of is not handed on', async () => {
    const first = await createTestDatabase('pglite');
    await sql`CREATE TABLE extra_table (id int)`.execute(first.db);
    await sql`ALTER TABLE run_snapshots ADD COLUMN extra_column int`.execute(first.db);
    await first.close();
    const second = await createTestDatabase('pglite');
    try {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'extra_table'`.execute(second.db);
      expect(rows[0]!.n).toBe(0);
      const columns = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.columns WHERE column_name = 'extra_column'`.execute(second.db);
      expect(columns.rows[0]!.n).toBe(0);
    } finally {
      await second.close();
    }
  });

  it('an instance left in the middle of a transaction is not handed on', async () => {
    const first = await createTestDatabase('pglite');
    await sql`BEGIN`.execute(first.db);
    await addRun(first.db, 'uncommitted');
    await first.close();
    const second = await createTestDatabase('pglite');
    try {
      expect(await runs(second)).toEqual([]);
      await addRun(second.db, 'committed');
      expect(await runs(second)).toEqual(['committed']);
    } finally {
      await second.close();
    }
  });
});

/** The schema a test database works in, asked of the database (reading `.schema` keeps it from being handed on). */
const schemaOf = async (database: TestDatabase) => (await sql<{ name: string }>`SELECT current_schema() AS name`.execute(database.db)).rows[0]!.name;
const schemaExists = async (database: TestDatabase, name: string) =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = ${name}`.execute(database.db)).rows[0]!.n === 1;

describe('the tests’ PostgreSQL schemas', needing('postgres'), () => {
  it('the schema is handed on: the next database starts empty, its sequences as new', async () => {
    const first = await createTestDatabase('postgres');
    const name = await schemaOf(first);
    await addRun(first.db, 'left-behind');
    const { rows: sequences } = await sql<{ name: string }>`SELECT sequencename AS name FROM pg_sequences WHERE schemaname = current_schema()`.execute(first.db);
    expect(sequences.length).toBeGreaterThan(0);
    for (const { name: sequence } of sequences) await sql`SELECT nextval(${sequence}::regclass)`.execute(first.db);
    await first.close();

    const second = await createTestDatabase('postgres');
    try {
      expect(await schemaOf(second)).toBe(name);
      expect(await runs(second)).toEqual([]);
      const used = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_sequences WHERE schemaname = current_schema() AND last_value IS NOT NULL`.execute(second.db);
      expect(used.rows[0]!.n).toBe(0);
    } finally {
      await second.close();
    }
  });

  it('a closed database’s handle, and a second pool the test left open, fail and cannot reach the next test’s rows', async () => {
    const first = await createTestDatabase('postgres');
    const name = await schemaOf(first);
    const other = await first.reopen();
    const leaked = first.db;
    await first.close();
    const second = await createTestDatabase('postgres');
    try {
      expect(await schemaOf(second)).toBe(name);
      await addRun(second.db, 'mine');
      await expect(leaked.selectFrom('run_snapshots').selectAll().execute()).rejects.toThrow();
      await expect(addRun(other.db, 'late')).rejects.toThrow();
      expect(await runs(second)).toEqual(['mine']);
    } finally {
      await second.close();
    }
  });

  it.each<[string, (first: TestDatabase) => Promise<void>]>([
    ['a test changed the definitions of', async (first) => void (await sql`CREATE TABLE extra_table (id int)`.execute(first.db))],
    // Read to start a process on it, say: the process may still be using it.
    ['whose name the test read', async (first) => void first.schema],
  ])('a schema %s is dropped, not handed on', async (_, use) => {
    const first = await createTestDatabase('postgres');
    const name = await schemaOf(first);
    await use(first);
    await first.close();
    const second = await createTestDatabase('postgres');
    try {
      expect(await schemaOf(second)).not.toBe(name);
      expect(await schemaExists(second, name)).toBe(false);
    } finally {
      await second.close();
    }
  });

  it('the run’s setup drops the schemas a run of this host that no longer exists left, and its end drops its own', async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    // No process has pid 2^22 + 1 (Linux's pid_max is at most 2^22); this worker stands for a run still going.
    const gone = `tp_${HOST}_4194305_0a`;
    const mine = `tp_${HOST}_${process.pid}_0b`;
    // A run in another container sharing the database: its pids are not this host's to ask about.
    const elsewhere = `tp_${HOST === '00000000' ? '11111111' : '00000000'}_4194305_0c`;
    try {
      for (const name of [gone, mine, elsewhere]) await client.query(`CREATE SCHEMA IF NOT EXISTS ${name}`);
      const exists = async (name: string) => (await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name])).rowCount === 1;
      const provided: Record<string, unknown> = {};
      const teardown = await setupPooledSchemas({ provide: (key: string, value: unknown) => void (provided[key] = value) } as never);
      expect(provided).toEqual({ schemaPrefix: `tp_${HOST}_${process.pid}` });
      expect([await exists(gone), await exists(mine), await exists(elsewhere)]).toEqual([false, true, true]);
      await teardown();
      expect([await exists(mine), await exists(elsewhere)]).toEqual([false, true]);
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS ${elsewhere}`);
      await client.end();
    }
  });
});
