import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { openDatabase, type Database, type Db } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import type { DB } from '../../src/db/schema.js';
import { PreparedStatementClient } from '../../src/db/prepared-statement-client.js';

export const defaultDatabaseUrl = 'postgres://postgres@127.0.0.1:5432/test';

/** The same pool size openDatabase() uses when none is given. */
export const poolSize = 10;

/** Counts every statement the pool sends to Postgres (BEGIN/COMMIT included). */
export class StatementCounter {
  count = 0;
  /** When set, each statement's text (whitespace collapsed) is appended here. */
  log: string[] | undefined;
  /** When set, each statement's round-trip time (ms) is appended here, keyed by its text. */
  timings: Map<string, number[]> | undefined;
  /**
   * Each statement text as sent → collapsed (at most 1,000 texts). A cycle's statements are the
   * same few texts every time; collapsing each again with a regular expression was a visible
   * share of the bot's CPU in the sequential cycles, which are traced.
   */
  private readonly collapsed = new Map<string, string>();

  /** Called before a statement is sent; returns what to call once it completes (or undefined). */
  record(query: unknown): ((ms: number) => void) | undefined {
    this.count += 1;
    if (!this.log && !this.timings) return undefined;
    const raw = typeof query === 'string' ? query : ((query as { text?: string } | null)?.text ?? String(query));
    let text = this.collapsed.get(raw);
    if (text === undefined) {
      text = raw.trim().replace(/\s+/g, ' ');
      if (this.collapsed.size < 1000) this.collapsed.set(raw, text);
    }
    this.log?.push(text);
    const timings = this.timings;
    if (!timings) return undefined;
    return (ms) => {
      const list = timings.get(text);
      if (list) list.push(ms);
      else timings.set(text, [ms]);
    };
  }
}

/** The production client (statements prepared per connection), with every `query` call counted before it is sent. */
function countingClient(counter: StatementCounter): new () => pg.ClientBase {
  const query = PreparedStatementClient.prototype.query as (...args: unknown[]) => unknown;
  return class CountingClient extends PreparedStatementClient {
    override query(...args: any[]): any {
      const done = counter.record(args[0]);
      const started = done ? performance.now() : 0;
      const result = query.apply(this, args);
      if (done && result instanceof Promise) {
        result.then(() => done(performance.now() - started), () => {});
      }
      return result;
    }
  };
}

export interface BenchDatabase {
  schema: string;
  /** Kysely over the counting pool: pass it as the agent's `storage`. */
  db: Db;
  counter: StatementCounter;
  /** The openDatabase() handle that created and migrated the schema (not counted). */
  admin: Database;
  close(): Promise<void>;
}

const open = new Set<BenchDatabase>();

/** Drops every bench schema still open (used on SIGINT). */
export async function closeAllBenchDatabases(): Promise<void> {
  await Promise.allSettled([...open].map((d) => d.close()));
}

export interface CountingPool {
  db: Db;
  counter: StatementCounter;
  close(): Promise<void>;
}

/**
 * Kysely over a pool of `poolSize` counting connections that work in `schema` (which must exist).
 * openBenchDatabase uses it; so does a bench child process that works in its parent's schema.
 */
export async function openCountingPool(databaseUrl: string, schema: string, extraOptions = ''): Promise<CountingPool> {
  const counter = new StatementCounter();
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    options: `-c search_path=${schema}${extraOptions ? ` ${extraOptions}` : ''}`,
    Client: countingClient(counter),
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  // pg lets parameters in the URL override `options`: make sure we really work in our schema.
  const current = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db).catch(async (error: unknown) => {
    await db.destroy();
    throw error;
  });
  if (current.rows[0]?.schema !== schema) {
    await db.destroy();
    throw new Error(`bench pool works in schema "${current.rows[0]?.schema}", not "${schema}": remove options from DATABASE_URL`);
  }
  counter.count = 0;
  return { db, counter, close: () => db.destroy() };
}

/** A fresh, migrated `bench_<random>` schema; close() drops it. */
export async function openBenchDatabase(databaseUrl: string, extraOptions = ''): Promise<BenchDatabase> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const admin = await openDatabase({ databaseUrl, schema, poolSize: 2 });
  try {
    await migrate(admin.db);
  } catch (error) {
    await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(admin.db).catch(() => {});
    await admin.close();
    throw error;
  }
  let counting: CountingPool;
  try {
    counting = await openCountingPool(databaseUrl, schema, extraOptions);
  } catch (error) {
    await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(admin.db).catch(() => {});
    await admin.close();
    throw error;
  }
  const { db, counter } = counting;
  counter.count = 0;
  let closed = false;
  const handle: BenchDatabase = {
    schema,
    db,
    counter,
    admin,
    async close() {
      if (closed) return;
      closed = true;
      open.delete(handle);
      await db.destroy().catch(() => {});
      try {
        await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(admin.db);
      } finally {
        await admin.close();
      }
    },
  };
  open.add(handle);
  return handle;
}
