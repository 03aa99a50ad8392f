import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import { EMBEDDED_START_PARAMS, openDatabase, type Database } from '../../src/db/database.js';
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
 * The statement that empties every table of `schema` but schema_migrations and sets its sequences
 * back to 1, in one round trip. DELETE, not TRUNCATE: a test leaves a few rows, and TRUNCATE gives every table new
 * files (about 150 ms for the schema on Postgres, against a few for DELETE). Foreign keys are not
 * checked while it runs (`session_replication_role`, for this transaction only), so the order of
 * the tables does not matter. The tables are looked up each time (in pg_catalog: information_schema's views cost more than
 * the deletes), since the demo creates tables of its own.
 */
function emptyStatement(schema: string): string {
  const literal = `'${schema.replaceAll("'", "''")}'`;
  return `DO $$
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
}

/** A database's `empty()`: emptyStatement for its schema, made once. */
function schemaEmptier(db: Kysely<DB>, schema: string): () => Promise<void> {
  const statement = emptyStatement(schema);
  return async () => {
    await sql.raw(statement).execute(db);
  };
}

/** The schema of the migrated PGlite copies: each is an instance of its own, so one name serves all. */
const PGLITE_SCHEMA = 't_pglite';

/** What tells one set of migrations (and PGlite version) from another: the tarball's and the pool's key. */
function migrationsKey(migrations: Migration[]): string {
  const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
  return createHash('sha256').update(version).update(JSON.stringify(migrations)).digest('hex').slice(0, 16);
}

/**
 * A PGlite data directory as `initdb` and `migrations` leave it, made once
 * per set of migrations (and PGlite version) and kept as a tarball in the temp folder: loading it
 * skips `initdb` and the migrations, the most of a PGlite start-up. Written under a temporary
 * name and renamed, so test files making it at the same time never read half of one.
 */
async function migratedPgliteTarball(key: string, migrations: Migration[]): Promise<Blob> {
  const path = join(tmpdir(), `slack-approval-bot-pglite-${key}.tar`);
  if (!existsSync(path)) {
    const { db, pglite } = await pgliteDatabase(new PGlite('memory://', { startParams: [...EMBEDDED_START_PARAMS] }));
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

/** The namespaces a test's definitions live in (`n`): not the system's, nor a session's temporary ones, which DISCARD ALL drops. */
const USER_NAMESPACE = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'`;

/**
 * Everything a test could have added to or changed in an instance's definitions, as one digest:
 * schemas, relations (and their columns), functions, types and triggers; shapeOf adds the
 * migrations' record.
 * An instance whose digest is not the one it was loaded with is not handed on.
 */
const SHAPE = `SELECT md5(string_agg(x, ',' ORDER BY x)) AS shape FROM (
  SELECT 'n:' || nspname AS x FROM pg_namespace WHERE nspname NOT LIKE 'pg_temp%' AND nspname NOT LIKE 'pg_toast_temp%'
  UNION ALL SELECT 'r:' || c.oid::regclass::text || ':' || c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE ${USER_NAMESPACE}
  UNION ALL SELECT 'a:' || a.attrelid::regclass::text || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull::text || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attnum > 0 AND NOT a.attisdropped AND ${USER_NAMESPACE}
  UNION ALL SELECT 'f:' || p.oid::regprocedure::text || ':' || md5(p.prosrc) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${USER_NAMESPACE}
  UNION ALL SELECT 't:' || t.oid::regtype::text FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE ${USER_NAMESPACE}
  UNION ALL SELECT 'g:' || tgrelid::regclass::text || '.' || tgname FROM pg_trigger WHERE NOT tgisinternal
) shapes`;

async function shapeOf(pglite: PGlite): Promise<string> {
  const [{ shape }] = (await pglite.query<{ shape: string }>(SHAPE)).rows as [{ shape: string }];
  // The migrations' record, where there is one (a database made with no migrations has none).
  const [{ kept }] = (await pglite.query<{ kept: boolean }>(`SELECT to_regclass('${PGLITE_SCHEMA}.schema_migrations') IS NOT NULL AS kept`)).rows as [{ kept: boolean }];
  if (!kept) return shape;
  const applied = await pglite.query(`SELECT * FROM ${PGLITE_SCHEMA}.schema_migrations ORDER BY 1`);
  return `${shape}:${JSON.stringify(applied.rows)}`;
}

interface LoadedPglite {
  pglite: PGlite;
  /** Its SHAPE as loaded. */
  shape: string;
}

/**
 * Instances test files of this worker closed, by set of migrations, for the next file to take.
 * Loading one from its tarball costs about 0.6 s of CPU (the WebAssembly instance, the file
 * system, Postgres starting), and the shared-modules workers load one or two per file; handed on
 * emptied, it costs a few statements. Only an instance exactly as loaded is handed on (releasePglite).
 */
const idle = new Map<string, LoadedPglite[]>();

/**
 * A closed test database's instance made ready for the next: its session reset (DISCARD ALL:
 * settings, prepared statements, temporary tables, advisory locks, listeners), its definitions
 * checked against what it was loaded with, its rows deleted. Anything else (a transaction left
 * open, a table a test created, an instance the test closed) closes it instead.
 */
async function releasePglite(key: string, loaded: LoadedPglite): Promise<void> {
  if (loaded.pglite.closed) return;
  try {
    // Two queries: DISCARD ALL may not share one with another statement (an implicit transaction).
    await loaded.pglite.exec('DISCARD ALL');
    await loaded.pglite.exec(`SET search_path TO ${PGLITE_SCHEMA}`);
    if ((await shapeOf(loaded.pglite)) !== loaded.shape) throw new Error('changed by the test');
    await loaded.pglite.exec(emptyStatement(PGLITE_SCHEMA));
    const free = idle.get(key) ?? [];
    free.push(loaded);
    idle.set(key, free);
  } catch {
    await loaded.pglite.close().catch(() => {});
  }
}

/**
 * A PGlite instance loaded from the tarball of `migrations`, or one a closed test database of this
 * worker left, emptied (releasePglite). The test's Kysely reaches it through a handle revoked when
 * the test database is closed: a timer or a query the closed test left behind fails as it would on
 * a closed instance, and never reaches the next test's.
 */
async function migratedPglite(migrations: Migration[]): Promise<TestDatabase> {
  const key = migrationsKey(migrations);
  let loaded = idle.get(key)?.pop();
  if (!loaded) {
    const { pglite } = await pgliteDatabase(new PGlite({ dataDir: 'memory://', loadDataDir: await migratedPgliteTarball(key, migrations), startParams: [...EMBEDDED_START_PARAMS] }));
    loaded = { pglite, shape: await shapeOf(pglite) };
  }
  const instance = loaded.pglite;
  const handle = Proxy.revocable(instance, {
    get(target, property) {
      // Closing the test's Kysely hands the instance back instead of ending it.
      if (property === 'close') return async () => {};
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(handle.proxy) });
  let closed = false;
  const database: TestDatabase = {
    db,
    kind: 'pglite',
    schema: PGLITE_SCHEMA,
    // PGlite is one connection: the "other" is the same one, and closing it must not end the test's.
    reopen: () => Promise.resolve({ db, kind: 'pglite', close: async () => {} }),
    empty: schemaEmptier(db, PGLITE_SCHEMA),
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
      handle.revoke();
      await releasePglite(key, loaded);
    },
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
  if (backend === 'postgres' && migrations === undefined) return migratedSchema();
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

/** What a test could have added to or changed in the definitions of one PostgreSQL schema ($1), and its migrations' record, as one digest. */
const SCHEMA_SHAPE = `SELECT md5(string_agg(x, ',' ORDER BY x)) AS shape FROM (
  SELECT 'r:' || c.relname || ':' || c.relkind::text AS x FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
  UNION ALL SELECT 'a:' || c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull::text || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attnum > 0 AND NOT a.attisdropped AND n.nspname = $1
  UNION ALL SELECT 'f:' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || '):' || md5(p.prosrc) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1
  UNION ALL SELECT 't:' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = $1
  UNION ALL SELECT 'g:' || c.relname || '.' || g.tgname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT g.tgisinternal AND n.nspname = $1
) shapes`;

interface PooledSchema {
  schema: string;
  /** Its SCHEMA_SHAPE and migrations as migrated. */
  shape: string;
}

/**
 * Migrated schemas test files of this worker closed, emptied, for the next file to take: making
 * one (CREATE SCHEMA and every migration) and dropping it cost about 0.2 s of PostgreSQL's and
 * the worker's time, some 80 times a run; handed on, a few statements. Named with the run's
 * prefix (pooled-schemas.ts, which drops them when the run ends).
 */
const idleSchemas: PooledSchema[] = [];

/**
 * The worker's one session for making, checking and dropping schemas, used by one caller at a time
 * (a check and its emptying must not interleave with another's). Kept open: a new session costs
 * about 25 ms to connect and 80 ms more for its first catalog query. Its socket does not keep the
 * worker alive.
 */
let admin: Promise<pg.Client> | undefined;
let adminQueue: Promise<unknown> = Promise.resolve();

async function connectAdmin(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL! });
  // A lost session is replaced on the next use.
  client.on('error', () => {
    admin = undefined;
  });
  client.on('end', () => {
    admin = undefined;
  });
  await client.connect();
  (client as unknown as { connection: { stream: { unref(): void } } }).connection.stream.unref();
  return client;
}

function onAdminSession<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const turn = adminQueue.then(async () => {
    admin ??= connectAdmin().catch((error: unknown) => {
      admin = undefined;
      throw error;
    });
    return work(await admin);
  });
  adminQueue = turn.catch(() => {});
  return turn;
}

async function schemaShape(client: pg.Client, schema: string): Promise<string> {
  const { rows } = await client.query<{ shape: string }>(SCHEMA_SHAPE, [schema]);
  const applied = await client.query<{ version: number; name: string }>(`SELECT version, name FROM ${schema}.schema_migrations ORDER BY version`);
  return `${rows[0]!.shape}:${JSON.stringify(applied.rows)}`;
}

/**
 * A schema a closed test database of this worker left made ready for the next: its definitions
 * checked against what they were once migrated, its rows deleted and sequences set back (with a
 * lock timeout: a session the test left holding a lock means the schema is not handed on). Its
 * test's own pools are closed by then, so nothing the closed test left behind reaches it; anything
 * else (a changed definition, a lock) drops it instead.
 */
async function releaseSchema(pooled: PooledSchema): Promise<void> {
  try {
    await onAdminSession(async (client) => {
      if ((await schemaShape(client, pooled.schema)) !== pooled.shape) throw new Error('changed by the test');
      try {
        await client.query(`BEGIN; SET LOCAL lock_timeout = '2s'`);
        await client.query(emptyStatement(pooled.schema));
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
    idleSchemas.push(pooled);
  } catch {
    await dropSchema(pooled.schema).catch(() => {});
  }
}

async function dropSchema(schema: string): Promise<void> {
  await onAdminSession((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}

/**
 * Closes a test's pool so that it cannot be used again: Kysely's destroy leaves an instance that
 * never ran a statement as it was, ready to connect on first use.
 */
async function closeForGood(database: Database): Promise<void> {
  await sql`SELECT 1`.execute(database.db).catch(() => {});
  await database.close().catch(() => {});
}

/**
 * A PostgreSQL schema with every migration, made for this test or one a closed test database of
 * this worker left (releaseSchema). Handed on only when no one else may be using it: a database
 * whose schema name the test read (to start a process on it, say) or whose pools the test did not
 * close is dropped when closed, as a schema made for one test always was.
 */
async function migratedSchema(): Promise<TestDatabase> {
  const databaseUrl = process.env.DATABASE_URL!;
  let pooled = idleSchemas.pop();
  let database: Database;
  if (pooled) {
    database = await openDatabase({ databaseUrl, schema: pooled.schema });
  } else {
    const schema = uniqueSchema(inject('schemaPrefix'));
    database = await openDatabase({ databaseUrl, schema });
    try {
      await migrate(database.db);
      pooled = { schema, shape: await onAdminSession((client) => schemaShape(client, schema)) };
    } catch (error) {
      await database.close();
      throw error;
    }
  }
  const { schema } = pooled;
  const others: Database[] = [];
  let handedOut = false;
  let closed = false;
  return {
    db: database.db,
    kind: 'postgres',
    get schema() {
      handedOut = true;
      return schema;
    },
    async reopen() {
      const other = await openDatabase({ databaseUrl, schema });
      others.push(other);
      return other;
    },
    empty: schemaEmptier(database.db, schema),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([database, ...others].map(closeForGood));
      if (handedOut) await dropSchema(schema);
      else await releaseSchema(pooled);
    },
  };
}
