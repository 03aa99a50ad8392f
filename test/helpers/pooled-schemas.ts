import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The prefix of the PostgreSQL schemas this run's workers hand on between test files (db.ts). */
    schemaPrefix: string;
  }
}

/** Pooled schemas are named `tp<pid of the run's vitest>_<random>`: the run they belong to, and whether it is still alive. */
export const POOLED_SCHEMA = /^tp(\d+)_[0-9a-f]+$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Drops the pooled schemas `which` picks, in one session. */
async function dropPooled(databaseUrl: string, which: (pid: number) => boolean): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'tp%'`);
    for (const { name } of rows) {
      const match = POOLED_SCHEMA.exec(name);
      if (match && which(Number(match[1]))) await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    }
  } finally {
    await client.end();
  }
}

const held = Symbol.for('slack-approval-bot.tests.pooled-schemas');
const processState = globalThis as { [held]?: { holders: number } };

/**
 * vitest's global setup for the PostgreSQL schemas test files hand on (db.ts): a worker keeps the
 * migrated schemas its files closed, emptied, for its next files, and they outlive the worker,
 * which vitest ends without a word. They are dropped here once every project is done (vitest calls
 * a global setup once per project, in one process), and, at the start of a run, those of a run
 * that no longer exists (stopped with Ctrl-C). Without DATABASE_URL there are none.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const databaseUrl = process.env.DATABASE_URL;
  const state = (processState[held] ??= { holders: 0 });
  state.holders += 1;
  project.provide('schemaPrefix', `tp${process.pid}`);
  if (databaseUrl && state.holders === 1) await dropPooled(databaseUrl, (pid) => pid !== process.pid && !alive(pid));
  return async () => {
    state.holders -= 1;
    if (state.holders > 0) return;
    delete processState[held];
    if (databaseUrl) await dropPooled(databaseUrl, (pid) => pid === process.pid);
  };
}
