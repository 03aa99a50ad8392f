/**
 * What a start of the built bot costs: `node dist/src/main.js` (what `npm start` runs from a
 * current build, `npm run start:prod`, the package's command and the Dockerfile's), the sandbox
 * with the demo, from spawn until it logs "Slack app started". On PostgreSQL (a bench schema,
 * migrated by the first start, which is not counted) and on the embedded PGlite (a DATA_DIR an
 * earlier start set up; its first start, initdb included, reported apart). See docs/benchmarks.md
 * ("The `startup` suite").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { openBenchDatabase } from '../lib/bench-db.js';
import { loadNow, machineInfo } from '../lib/machine.js';
import { processCpuMs } from '../lib/proc-cpu.js';
import { round, summarize } from '../lib/stats.js';
import type { Suite, SuiteContext, TableRow } from '../lib/suite.js';
import { ensureBuiltPackage } from '../../test/helpers/built-package.js';
import { urlWithSchema } from '../../test/helpers/bot-database.js';
import { startBotProcess } from '../../test/helpers/bot-process.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface Start {
  cpuMs: number;
  wallMs: number;
  rssMb: number;
}

/** One start: CPU (user + system) and resident memory read from /proc once the line is logged, then SIGTERM. */
async function startOnce(env: Record<string, string>): Promise<Start> {
  const started = performance.now();
  const bot = startBotProcess({ command: [process.execPath, 'dist/src/main.js'], cwd: ROOT, env });
  try {
    await bot.waitForLog(/^Slack app started$/);
    const wallMs = performance.now() - started;
    const pid = bot.child.pid!;
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return { cpuMs: processCpuMs(pid), wallMs, rssMb: rssKb / 1024 };
  } finally {
    await bot.stop();
  }
}

async function starts(count: number, env: Record<string, string>): Promise<Start[]> {
  const all: Start[] = [];
  for (let i = 0; i < count; i++) all.push(await startOnce(env));
  return all;
}

const median = (values: number[]) => summarize(values).p50;
const summary = (all: Start[]) => ({
  cpuMs: round(median(all.map((s) => s.cpuMs)), 0),
  wallMs: round(median(all.map((s) => s.wallMs)), 0),
  rssMb: round(median(all.map((s) => s.rssMb)), 0),
  cpuMsEach: all.map((s) => round(s.cpuMs, 0)),
});
const cells = (s: ReturnType<typeof summary>) => `${s.cpuMs} ms · ${s.wallMs} ms · ${s.rssMb} MB`;

async function run(ctx: SuiteContext) {
  await ensureBuiltPackage();
  const loadBefore = loadNow(ctx.log);
  const count = ctx.quick ? 2 : 7;
  const bench = await openBenchDatabase(ctx.databaseUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  try {
    const postgresEnv = { DATABASE_URL: urlWithSchema(ctx.databaseUrl, bench.schema) };
    const pgliteEnv = { DATA_DIR: join(dataDir, 'data') };
    ctx.log(`PostgreSQL: 1 start to migrate, then ${count}`);
    await startOnce(postgresEnv);
    const postgres = summary(await starts(count, postgresEnv));
    ctx.log(`PGlite: the first start (initdb), then ${count}`);
    const first = summary([await startOnce(pgliteEnv)]);
    const pglite = summary(await starts(count, pgliteEnv));
    const version = await sql<{ v: string }>`SHOW server_version`.execute(bench.db);
    const rows: TableRow[] = [
      { metric: `Built, PostgreSQL: CPU · wall · RSS (median of ${count})`, value: cells(postgres) },
      { metric: `Built, PGlite, a DATA_DIR set up before (median of ${count})`, value: cells(pglite) },
      { metric: 'Built, PGlite, the first start on an empty DATA_DIR (initdb)', value: cells(first) },
    ];
    return {
      rows,
      notes: ['From spawn until "Slack app started"; CPU is the process\'s user + system time, RSS its resident memory, both read from /proc then.'],
      json: { machine: machineInfo(version.rows[0]!.v, loadBefore, loadNow(ctx.log)), starts: count, postgres, pglite, pgliteFirstStart: first },
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await bench.close();
  }
}

export const startupSuite: Suite = {
  name: 'startup',
  description: 'A start of the built bot (node dist/src/main.js, the sandbox and the demo) until "Slack app started"',
  run,
};
