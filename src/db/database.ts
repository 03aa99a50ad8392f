import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import { silentLogger, type Logger } from '../logger.js';
import { surviveConnectionLoss } from './connection-loss.js';
import { PGliteDialect } from './pglite-dialect.js';
import { PreparedStatementClient } from './prepared-statement-client.js';
import type { DB } from './schema.js';

export type Db = Kysely<DB>;

export interface Database {
  readonly db: Db;
  readonly kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://…`; absent → embedded PGlite. */
  databaseUrl?: string;
  /** PGlite data directory; `memory://` keeps it in memory. */
  dataDir?: string;
  /** Postgres schema to work in (created when missing); tests use one each. */
  schema?: string;
  poolSize?: number;
  /**
   * Prepare each parameterised statement once per connection (default true).
   * Turn off behind a pooler that hands one session's statements to another
   * connection (PgBouncer in transaction mode before 1.21).
   */
  preparedStatements?: boolean;
  /** Where a lost PostgreSQL connection is reported (one warn line each); default silent. */
  logger?: Logger;
}

const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;
/** PostgreSQL's SQLSTATE for a duplicate key. */
const UNIQUE_VIOLATION = '23505';

/**
 * How the embedded PostgreSQL starts: PGlite's own parameters, and a buffer pool sized for the one
 * session PGlite has. initdb writes PostgreSQL's server default, `shared_buffers = 128MB`, into
 * the data directory, and PGlite allocates and clears all of it in its WebAssembly memory at every
 * start, whatever the data: measured on a migrated DATA_DIR, opening took 1.4–1.9 s of CPU at
 * 128 MB and 0.8–1.2 s at 32 MB, and the process held 290–300 MB against 170–190 MB. The
 * embedded database is for trying the bot and for tests (README, "Running several instances"), and
 * 32 MB holds their tables many times over; a page outside it is read from the data directory's
 * files, which the OS caches. A parameter given at start overrides the data directory's own
 * postgresql.conf, so directories made before keep working and get the same pool.
 */
export const EMBEDDED_START_PARAMS: readonly string[] = Object.freeze([...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB']);

/** One code path above the dialect: callers get a Kysely instance either way. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.schema !== undefined && !schemaName.test(options.schema)) {
    throw new Error(`Invalid schema name: ${options.schema}`);
  }
  if (options.databaseUrl) {
    const logger = options.logger ?? silentLogger;
    if (options.schema) {
      const admin = new pg.Client({ connectionString: options.databaseUrl });
      // A loss here needs no line of its own: the statement rejects with it, and so does openDatabase.
      admin.on('error', () => {});
      await admin.connect();
      try {
        await admin.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`).catch((error: unknown) => {
          // IF NOT EXISTS does not cover two sessions creating it at once (processes starting
          // together): the one that loses the race fails on the catalog's unique index, and the
          // schema it wanted exists, made by the other.
          if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
        });
      } finally {
        await admin.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      ...(options.preparedStatements === false ? {} : { Client: PreparedStatementClient }),
    });
    surviveConnectionLoss(pool, logger);
    const schema = options.schema;
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({
        pool,
        // Set per connection rather than as a connection option: `?options=` in the URL would override that.
        ...(schema
          ? { onCreateConnection: async (connection) => void (await connection.executeQuery(CompiledQuery.raw(`SET search_path TO ${schema}`))) }
          : {}),
      }),
    });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  const dataDir = options.dataDir ?? '.data';
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const pglite = new PGlite(dataDir, { startParams: [...EMBEDDED_START_PARAMS] });
  await pglite.waitReady;
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  if (options.schema) {
    await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${options.schema}; SET search_path TO ${options.schema}`).execute(db);
  }
  return { db, kind: 'pglite', close: () => db.destroy() };
}
