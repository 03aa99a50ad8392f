import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate, readMigrations, type Migration } from '../../src/db/migrate.js';
import { PGliteDialect } from '../../src/db/pglite-dialect.js';
import type { DB } from '../../src/db/schema.js';

export type Backend = 'postgres' | 'pglite';

export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export interface TestDatabase extends Database {
  schema: string;
  /** Another independent connection pool to the same data (Postgres), for races. */
  reopen(): Promise<Database>;
  /**
   * Empties every table but the migrations' record (ids start again), so the next test starts
   * on a database as fresh as a new one, without paying for the migrations again.
   */
  empty(): Promise<void>;
}

/** Every table of `schema` but schema_migrations, emptied in one statement. */
async function emptySchema(db: Kysely<DB>, schema: string): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
    WHERE table_schema = ${schema} AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'`.execute(db);
  if (rows.length > 0) await sql.raw(`TRUNCATE ${rows.map((r) => r.name).join(', ')} RESTART IDENTITY CASCADE`).execute(db);
}

/** The schema of the migrated PGlite copies: each is an instance of its own, so one name serves all. */
const PGLITE_SCHEMA = 't_pglite';

/**
 * A PGlite data directory as `initdb` and `migrations` (every one, or none) leave it, made once
 * per set of migrations (and PGlite version) and kept as a tarball in the temp folder: loading it
 * skips `initdb` and the migrations, the most of a PGlite start-up. Written under a temporary
 * name and renamed, so test files making it at the same time never read half of one.
 */
async function migratedPgliteTarball(migrations: Migration[]): Promise<Blob> {
  const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
  const key = createHash('sha256').update(version).update(JSON.stringify(migrations)).digest('hex').slice(0, 16);
  const path = join(tmpdir(), `slack-approval-bot-pglite-${key}.tar`);
  if (!existsSync(path)) {
    const { db, pglite } = await pgliteDatabase(new PGlite('memory://'));
    await migrate(db, migrations);
    const tarball = await pglite.dumpDataDir('none');
    await db.destroy();
    const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await tarball.arrayBuffer()));
    renameSync(partial, path);
  }
  return new Blob([readFileSync(path)]);
}

/** Kysely on a PGlite instance, in PGLITE_SCHEMA (as openDatabase does with a schema). */
async function pgliteDatabase(pglite: PGlite): Promise<{ db: Kysely<DB>; pglite: PGlite }> {
  await pglite.waitReady;
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${PGLITE_SCHEMA}; SET search_path TO ${PGLITE_SCHEMA}`).execute(db);
  return { db, pglite };
}

/** A PGlite instance of its own, loaded from the tarball of `migrations`. */
async function migratedPglite(migrations: Migration[]): Promise<TestDatabase> {
  const { db } = await pgliteDatabase(new PGlite({ dataDir: 'memory://', loadDataDir: await migratedPgliteTarball(migrations) }));
  const database: TestDatabase = {
    db,
    kind: 'pglite',
    schema: PGLITE_SCHEMA,
    // PGlite is one connection: the "other" is the same one, and closing it must not end the test's.
    reopen: () => Promise.resolve({ db, kind: 'pglite', close: async () => {} }),
    empty: () => emptySchema(db, PGLITE_SCHEMA),
    close: () => db.destroy(),
  };
  return database;
}

/**
 * A fresh, migrated database (its own schema on Postgres, its own instance on PGlite);
 * `migrations` to build one as an older release left it.
 */
export async function createTestDatabase(backend: Backend, dataDir = 'memory://', migrations?: Migration[]): Promise<TestDatabase> {
  // Every migration, or none (a database no migration has touched yet): both kept as tarballs.
  if (backend === 'pglite' && dataDir === 'memory://' && (migrations === undefined || migrations.length === 0)) return migratedPglite(migrations ?? readMigrations());
  const schema = uniqueSchema();
  const options =
    backend === 'postgres'
      ? { databaseUrl: process.env.DATABASE_URL!, schema }
      : { dataDir, schema };
  const database = await openDatabase(options);
  await migrate(database.db, migrations);
  return {
    ...database,
    schema,
    reopen: () =>
      backend === 'postgres'
        ? openDatabase({ databaseUrl: process.env.DATABASE_URL!, schema })
        : // PGlite is one connection: the "other" is the same one, and closing it must not end the test's.
          Promise.resolve({ ...database, close: async () => {} }),
    empty: () => emptySchema(database.db, schema),
    async close() {
      if (backend === 'postgres') {
        await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(database.db);
      }
      await database.close();
    },
  };
}
