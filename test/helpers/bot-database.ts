import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migratedDataDir } from './migrated-data-dir.js';

export interface BotDatabase {
  /** What to add to a bot process's environment: DATABASE_URL, or DATA_DIR. */
  env: Record<string, string>;
  /** The same database opened in the test's own process (once the bot process has stopped, for PGlite). */
  open(): Promise<Database>;
  /** Drops what it made on PostgreSQL (the data directory is the test's folder's to remove). */
  drop(): Promise<void>;
}

/**
 * The database of a bot process whose test is not about the embedded default: PostgreSQL when
 * DATABASE_URL is set (what CI and a deployment run), in a schema of its own that the processes
 * given it migrate themselves (DATABASE_URL's `options` setting search_path, as a team would point
 * the bot at a schema); without it, `dataDir` as an earlier start left it (migrated-data-dir.ts).
 * Opening and closing PGlite costs a bot process about 1.3 s of CPU, and its data directory a
 * 40 MB copy; a fresh schema costs neither.
 */
export async function botDatabase(dataDir: string): Promise<BotDatabase> {
  const url = process.env.DATABASE_URL;
  if (!url) return { env: { DATA_DIR: await migratedDataDir(dataDir) }, open: () => openDatabase({ dataDir }), drop: async () => {} };
  const schema = `bot_${randomBytes(6).toString('hex')}`;
  await onPostgres(url, `CREATE SCHEMA ${schema}`);
  return {
    env: { DATABASE_URL: urlWithSchema(url, schema) },
    open: () => openDatabase({ databaseUrl: url, schema }),
    drop: () => onPostgres(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  };
}

/** DATABASE_URL for a process that is to work in `schema`: as a team points the bot at a schema of its own. */
export function urlWithSchema(url: string, schema: string): string {
  return urlWithSettings(url, { search_path: schema });
}

/** DATABASE_URL with server settings every connection starts with (its `options`, as libpq reads them). */
export function urlWithSettings(url: string, settings: Record<string, string>): string {
  const options = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`).join(' ');
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(options)}`;
}

async function onPostgres(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
