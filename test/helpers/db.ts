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

/**
 * Every table of `schema` but schema_migrations emptied and its sequences set back to 1, in one
 * round trip. DELETE, not TRUNCATE: a test leaves a few rows, and TRUNCATE gives every table new
 * files (about 150 ms for the schema on Postgres, against a few for DELETE). Foreign keys are not
 * checked while it runs (`session_replication_role`, for this transaction only), so the order of
 * the tables does not matter. The tables are looked up each time (in pg_catalog: information_schema's views cost more than
 * the deletes), since the demo creates tables of its own.
 */
function schemaEmptier(db: Kysely<DB>, schema: string): () => Promise<void> {
  const literal = `'${schema.replaceAll("'", "''")}'`;
  const statement = `DO $$
DECLARE r record;
BEGIN
  PERFORM set_config('session_replication_role', 'replica', true);
  FOR r IN SELECT c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = ${literal} AND c.relkind IN ('r', 'p') AND c.relname <> 'schema_migrations' LOOP
    EXECUTE 'DELETE FROM ' || r.name;
  END LOOP;
  FOR r IN SELECT c.oid AS id FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = ${literal} AND c.relkind = 'S' LOOP
    PERFORM setval(r.id, 1, false);
  END LOOP;
END $$`;
  return async () => {
    await sql.raw(statement).execute(db);
  };
}

/** The schema of the migrated PGlite copies: each is an instance of its own, so one name serves all. */
const PGLITE_SCHEMA = 't_pglite';

/**
 * A PGlite data directory as `initdb` and `migrations` leave it, made once
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
    empty: schemaEmptier(db, PGLITE_SCHEMA),
    close: () => db.destroy(),
  };
  return database;
}

/**
 * A fresh, migrated database (its own schema on Postgres, its own instance on PGlite);
 * `migrations` to build one as an older release left it.
 */
export async function createTestDatabase(backend: Backend, dataDir = 'memory://', migrations?: Migration[]): Promise<TestDatabase> {
  // Every set of migrations asked for (all, none, or an older release's) is kept as a tarball of its own.
  if (backend === 'pglite' && dataDir === 'memory://') return migratedPglite(migrations ?? readMigrations());
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
    empty: schemaEmptier(database.db, schema),
    async close() {
      if (backend === 'postgres') {
        await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(database.db);
      }
      await database.close();
    },
  };
}
