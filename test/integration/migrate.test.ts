import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { backends, createTestDatabase, uniqueSchema } from '../helpers/db.js';

const run = promisify(execFile);

describe.each(backends)('migrations on %s', (backend) => {
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

describe.runIf(process.env.DATABASE_URL)('migrations from two processes at once', () => {
  const schema = uniqueSchema('mig');
  afterAll(async () => {
    const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL! });
    await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(db.db);
    await db.close();
  });

  it('each migration is applied exactly once', async () => {
    const script = `
      import { openDatabase } from './src/db/database.ts';
      import { migrate } from './src/db/migrate.ts';
      const d = await openDatabase({ databaseUrl: process.env.DATABASE_URL, schema: '${schema}' });
      console.log(JSON.stringify(await migrate(d.db)));
      await d.close();`;
    const spawn = () => run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 });
    const [a, b] = await Promise.all([spawn(), spawn()]);
    const applied = ([JSON.parse(a.stdout), JSON.parse(b.stdout)].flat() as number[]).sort((x, y) => x - y);
    expect(applied).toEqual(readMigrations().map((m) => m.version));
  }, 90_000);
});
