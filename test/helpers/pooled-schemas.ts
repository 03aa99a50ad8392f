import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { oncePerRun } from './once-per-run.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The prefix of the PostgreSQL schemas this run's workers hand on between test files (db.ts). */
    schemaPrefix: string;
  }
}

/**
 * Pooled schemas are named `tp_<host>_<pid of the run's vitest>_<random>`: the run they belong to,
 * and whether it is still alive. Only a run on this host can be asked that: runs in other
 * containers sharing the database have hosts of their own (and pids of their own namespace).
 */
export const POOLED_SCHEMA = /^tp_([0-9a-f]{8})_(\d+)_[0-9a-f]+$/;
export const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Drops the pooled schemas of this host's runs that `which` picks, in one session. */
async function dropPooled(databaseUrl: string, which: (pid: number) => boolean): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'tp\\_${HOST}\\_%'`);
    for (const { name } of rows) {
      const match = POOLED_SCHEMA.exec(name);
      if (match && which(Number(match[2]))) await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    }
  } finally {
    await client.end();
  }
}

/**
 * vitest's global setup for the PostgreSQL schemas test files hand on (db.ts): a worker keeps the
 * migrated schemas its files closed, emptied, for its next files, and they outlive the worker,
 * which vitest ends without a word. They are dropped here once every project is done (oncePerRun),
 * and, at the start of a run, those of a run on this host that no longer exists (stopped with
 * Ctrl-C). Without DATABASE_URL there are none.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const databaseUrl = process.env.DATABASE_URL;
  const run = await oncePerRun(
    'slack-approval-bot.tests.pooled-schemas',
    async () => {
      if (databaseUrl) await dropPooled(databaseUrl, (pid) => pid !== process.pid && !alive(pid));
    },
    async () => {
      if (databaseUrl) await dropPooled(databaseUrl, (pid) => pid === process.pid);
    },
  );
  project.provide('schemaPrefix', `tp_${HOST}_${process.pid}`);
  return run.teardown;
}
