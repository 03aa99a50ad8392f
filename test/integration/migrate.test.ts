import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/database.js';
import { migrate, readMigrations, RETIRED_VERSIONS, type Migration } from '../../src/db/migrate.js';
import { createDemoTables, demoDb } from '../../src/demo/demo-tables.js';
import { seedDemoData } from '../../src/demo/seed-demo-data.js';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { createTestDatabase, uniqueSchema } from '../helpers/db.js';
import { describeBackends, needing } from '../helpers/needs.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);

describeBackends('migrations on %s', (backend) => {
  it('applies every numbered file once, in order, and records it', async () => {
    const database = await createTestDatabase(backend);
    try {
      const rows = await database.db.selectFrom('schema_migrations').select(['version', 'name']).orderBy('version').execute();
      expect(rows.map((r) => r.version)).toEqual(readMigrations().map((m) => m.version));
      expect(await migrate(database.db)).toEqual([]);
      await expect(sql`UPDATE audit_events SET event = 'x'`.execute(database.db)).resolves.toBeDefined();
      await sql`INSERT INTO audit_events (event, run_id) VALUES ('requested', 'r')`.execute(database.db);
      await expect(sql`UPDATE audit_events SET event = 'x'`.execute(database.db)).rejects.toThrow(/append-only/);
      await expect(sql`DELETE FROM audit_events`.execute(database.db)).rejects.toThrow(/append-only/);
    } finally {
      await database.close();
    }
  });
});

const demoTableNames = ['demo_deployments', 'demo_orders', 'demo_records', 'demo_refunds'];

/** The demo's tables in the database's own schema. */
async function demoTablesIn(db: Db): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_name LIKE 'demo\\_%'
    ORDER BY table_name`.execute(db);
  return rows.map((r) => r.table_name);
}

/** Every migration as a release from before the demo created its own tables applied them: 002 included. */
function migrationsWithRetiredDemo(): Migration[] {
  const demo = { version: 2, name: 'demo', sql: readFileSync('test/fixtures/migrations/002_demo.sql', 'utf8') };
  return [...readMigrations(), demo].sort((a, b) => a.version - b.version);
}

describeBackends('the demo tables on %s', (backend) => {
  it('a fresh database gets none from the migrations; the demo creates them, however many times it starts', async () => {
    const database = await createTestDatabase(backend);
    try {
      expect(await demoTablesIn(database.db)).toEqual([]);
      const other = await database.reopen();
      try {
        // Two instances starting together: both succeed, and the tables exist once.
        await Promise.all([createDemoTables(database.db), createDemoTables(other.db)]);
      } finally {
        await other.close();
      }
      await createDemoTables(database.db);
      expect(await demoTablesIn(database.db)).toEqual(demoTableNames);
      expect(await seedDemoData(database.db)).toEqual({ records: 3, orders: 3 });
      const versions = await database.db.selectFrom('schema_migrations').select('version').execute();
      expect(versions.map((v) => v.version)).not.toContain(2);
    } finally {
      await database.close();
    }
  });

  it('a database that applied migration 002 migrates on, and the demo keeps its rows', async () => {
    const database = await createTestDatabase(backend, 'memory://', migrationsWithRetiredDemo());
    try {
      expect(await demoTablesIn(database.db)).toEqual(demoTableNames);
      const demo = demoDb(database.db);
      await seedDemoData(database.db);
      await demo.updateTable('demo_records').set({ deleted_at: new Date() }).where('id', '=', 'abc-123').execute();
      await demo.updateTable('demo_orders').set({ refunded_cents: 700 }).where('id', '=', '1044').execute();
      await demo.insertInto('demo_refunds').values({ order_id: '1044', amount_cents: 700, reason: 'damaged' }).execute();
      await demo.insertInto('demo_deployments').values({ service: 'api', environment: 'production', version: '2.3' }).execute();

      // The release that no longer has 002: nothing to apply, and the record of 002 stays.
      expect(await migrate(database.db)).toEqual([]);
      const versions = await database.db.selectFrom('schema_migrations').select('version').orderBy('version').execute();
      expect(versions.map((v) => v.version)).toEqual(migrationsWithRetiredDemo().map((m) => m.version));

      await createDemoTables(database.db);
      expect(await seedDemoData(database.db)).toEqual({ records: 0, orders: 0 });
      const record = await demo.selectFrom('demo_records').selectAll().where('id', '=', 'abc-123').executeTakeFirstOrThrow();
      expect(record.deleted_at).toBeInstanceOf(Date);
      expect((await demo.selectFrom('demo_orders').selectAll().where('id', '=', '1044').executeTakeFirstOrThrow()).refunded_cents).toBe(700);
      expect(await demo.selectFrom('demo_refunds').select(['order_id', 'amount_cents']).execute()).toEqual([{ order_id: '1044', amount_cents: 700 }]);
      expect(await demo.selectFrom('demo_deployments').select('version').execute()).toEqual([{ version: '2.3' }]);
      // Its constraints are still 002's: no refund beyond the order's total.
      await expect(demo.updateTable('demo_orders').set({ refunded_cents: 12_501 }).where('id', '=', '1044').execute()).rejects.toThrow();
    } finally {
      await database.close();
    }
  });
});

describe('migration numbers', () => {
  it('a new file may not take a retired number, which databases may have applied already', () => {
    const dir = tempDir('migrations-');
    try {
      writeFileSync(join(dir, '001_first.sql'), 'SELECT 1;');
      writeFileSync(join(dir, '002_reused.sql'), 'SELECT 1;');
      expect(RETIRED_VERSIONS.has(2)).toBe(true);
      expect(() => readMigrations(dir)).toThrow(/version 2 is retired.*002_reused\.sql/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a schema opened by two processes at once', needing('postgres'), () => {
  const schemas = Array.from({ length: 10 }, () => uniqueSchema('open'));
  afterAll(async () => {
    const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL! });
    for (const schema of schemas) await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(db.db);
    await db.close();
  });

  it('is created once, and both open it', async () => {
    // Each round is two instances starting together on a schema nobody made yet.
    for (const schema of schemas) {
      const both = await Promise.all([0, 1].map(() => openDatabase({ databaseUrl: process.env.DATABASE_URL!, schema })));
      try {
        for (const opened of both) expect((await sql<{ s: string }>`SELECT current_schema() AS s`.execute(opened.db)).rows[0]!.s).toBe(schema);
      } finally {
        await Promise.all(both.map((opened) => opened.close()));
      }
    }
  });
});

describe('migrations from two processes at once', needing('postgres'), () => {
  const schema = uniqueSchema('mig');
  beforeAll(ensureBuiltPackage, 300_000);
  afterAll(async () => {
    const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL! });
    await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(db.db);
    await db.close();
  });

  it('each migration is applied exactly once', async () => {
    // The build (dist/), as the bot's processes run it: compiling the sources in each process is no part of this.
    const script = `
      import { openDatabase } from './dist/src/db/database.js';
      import { migrate } from './dist/src/db/migrate.js';
      const d = await openDatabase({ databaseUrl: process.env.DATABASE_URL, schema: '${schema}' });
      console.log(JSON.stringify(await migrate(d.db)));
      await d.close();`;
    const spawn = () => run(process.execPath, ['--input-type=module', '-e', script], { timeout: 60_000 });
    const [a, b] = await Promise.all([spawn(), spawn()]);
    const applied = ([JSON.parse(a.stdout), JSON.parse(b.stdout)].flat() as number[]).sort((x, y) => x - y);
    expect(applied).toEqual(readMigrations().map((m) => m.version));
  }, 90_000);
});
