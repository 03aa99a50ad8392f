/**
 * The process of the connection-loss tests. It opens the database, lets a separate connection
 * terminate some of its pool's connections (only those: by the backend pids it saw), and prints
 * one JSON line with what happened. An unhandled 'error' event from pg would end it with exit 1
 * before that line, which is the failure the tests look for.
 *   - CHILD_MODE=idle: every connection of the pool is idle when terminated;
 *   - CHILD_MODE=transaction: the connection is checked out, between two statements of a transaction;
 *   - CHILD_MODE=in-flight: the connection is terminated while a statement runs on it.
 */
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { errorMessage } from '../../src/error-message.js';
import { createLogger } from '../../src/logger.js';

const mode = process.env.CHILD_MODE;
const poolSize = mode === 'idle' ? 3 : 1;
const lines: Record<string, unknown>[] = [];
const logger = createLogger({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, schema: process.env.CHILD_SCHEMA!, poolSize, logger });
const db = database.db;
const killer = new pg.Client({ connectionString: process.env.DATABASE_URL! });
await killer.connect();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Anything at warn or above: the tests expect exactly one warn line per dropped connection and nothing louder.
const warnings = () => lines.filter((line) => (line.level as number) >= 40);

async function terminate(pids: number[]): Promise<number> {
  const result = await killer.query<{ done: boolean }>(
    'SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE pid = ANY($1::int[]) AND pid <> pg_backend_pid()',
    [pids],
  );
  return result.rows.filter((row) => row.done).length;
}

/** Waits (at most 5 s) for `count` warnings, then a little longer, so that a surplus one would show. */
async function warned(count: number): Promise<void> {
  for (let waited = 0; warnings().length < count && waited < 5000; waited += 10) await sleep(10);
  await sleep(200);
}

async function backendPid(): Promise<number> {
  return (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid;
}

/** What the pool does next: as many statements at once as it has connections, and the schema they run in. */
async function afterwards() {
  const rows = await Promise.all(
    Array.from({ length: poolSize * 2 }, () =>
      sql<{ pid: number; schema: string }>`SELECT pg_backend_pid() AS pid, current_schema() AS schema, pg_sleep(0.02)`.execute(db),
    ),
  );
  return { pids: [...new Set(rows.map((r) => r.rows[0]!.pid))], schemas: [...new Set(rows.map((r) => r.rows[0]!.schema))] };
}

let report: Record<string, unknown>;
if (mode === 'idle') {
  // Statements at once, each holding its connection a moment: the pool opens all of them.
  const held = await Promise.all(
    Array.from({ length: poolSize }, () => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.1)`.execute(db)),
  );
  const pids = [...new Set(held.map((r) => r.rows[0]!.pid))];
  const terminated = await terminate(pids);
  await warned(pids.length);
  report = { pids, terminated, warnings: warnings(), after: await afterwards() };
} else if (mode === 'transaction') {
  let pid = 0;
  let terminated = 0;
  let rejected: string | undefined;
  try {
    await db.transaction().execute(async (trx) => {
      pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx)).rows[0]!.pid;
      terminated = await terminate([pid]);
      await warned(1);
      await sql`SELECT 1`.execute(trx);
    });
  } catch (error) {
    rejected = errorMessage(error);
  }
  report = { pids: [pid], terminated, rejected, warnings: warnings(), after: await afterwards() };
} else if (mode === 'in-flight') {
  const pid = await backendPid();
  const running = sql`SELECT pg_sleep(30)`.execute(db).then(
    () => undefined,
    (error: unknown) => errorMessage(error),
  );
  for (let waited = 0; waited < 5000; waited += 10) {
    const active = await killer.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = $2', [pid, 'active']);
    if (active.rows.length > 0) break;
    await sleep(10);
  }
  const terminated = await terminate([pid]);
  const rejected = await running;
  await warned(1);
  report = { pids: [pid], terminated, rejected, warnings: warnings(), after: await afterwards() };
} else {
  throw new Error(`unknown CHILD_MODE ${mode}`);
}

await killer.end();
await database.close();
process.stdout.write(JSON.stringify(report) + '\n');
