/**
 * The runtime suite's cycle on this runtime and on Mastra, side by side in one sitting: same
 * scripted model, same `delete_record` tool with `requireApproval: true`, same PostgreSQL, each in
 * a fresh schema. Mastra is installed into a scratch directory (bench/.mastra-cache, git-ignored,
 * reused when present) with the Node 22 it needs, and runs in a child process on that Node, so
 * the product has no Mastra dependency. See docs/benchmarks.md ("The `mastra` suite").
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { openBenchDatabase, poolSize } from '../lib/bench-db.js';
import { childResult } from '../lib/child-rpc.js';
import { benchAgent } from '../lib/fixture.js';
import { loadNow, machineInfo } from '../lib/machine.js';
import { round } from '../lib/stats.js';
import type { Suite, SuiteContext, TableRow } from '../lib/suite.js';
import { Executions, runCycles } from './runtime.js';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = join(benchDir, '.mastra-cache');
const childScript = join(benchDir, 'lib', 'mastra-cycles.mjs');

/** What the scratch install holds: exact versions, so every sitting measures the same Mastra. */
const mastraPackages = {
  '@mastra/core': '1.71.0',
  // The @mastra/pg released with @mastra/core 1.70/1.71 (its peer range covers 1.71).
  '@mastra/pg': '1.27.1',
  // Mastra 1.71 requires Node >= 22.13; this package ships a Node 22 binary.
  node: '22.23.3',
  zod: '4.6.7',
};

const fullConfig = {
  rounds: 2,
  ours: { sequential: { warmup: 200, cycles: 2000 }, concurrent: { warmup: 200, cycles: 4000 } },
  mastra: { sequential: { warmup: 30, cycles: 300 }, concurrent: { warmup: 40, cycles: 600 }, statementCycles: 20 },
  inFlight: 20,
};

const quickConfig: typeof fullConfig = {
  rounds: 1,
  ours: { sequential: { warmup: 20, cycles: 100 }, concurrent: { warmup: 20, cycles: 200 } },
  mastra: { sequential: { warmup: 5, cycles: 20 }, concurrent: { warmup: 10, cycles: 40 }, statementCycles: 5 },
  inFlight: 20,
};

const targets = {
  /** Issue 26: at least 8× Mastra's cycles/s on the same workload. */
  ratio: 8,
};

interface Side {
  cyclesPerSec: number;
  nodeCpuMsPerCycle: number;
}

interface MastraResult {
  mastraCore: string;
  mastraPg: string;
  node: string;
  sequential: Side & { cycles: number; statementsPerCycle: number };
  concurrent: Side & { cycles: number; statementsPerCycle: number };
  statementsPerCycle: number;
}

const exec = promisify(execFile);

/** The scratch install's Node binary, after installing Mastra there unless the right versions already are. */
async function ensureMastra(ctx: SuiteContext): Promise<string> {
  const nodeBin = join(cacheDir, 'node_modules', 'node', 'bin', 'node');
  const installed = (name: string) => {
    const file = join(cacheDir, 'node_modules', name, 'package.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : undefined;
  };
  const ready = Object.entries(mastraPackages).every(([name, version]) => installed(name) === version) && existsSync(nodeBin);
  if (!ready) {
    ctx.log(`installing ${Object.entries(mastraPackages).map(([n, v]) => `${n}@${v}`).join(', ')} into ${cacheDir}`);
    mkdirSync(cacheDir, { recursive: true });
    // `allowScripts`: npm 11 runs a dependency's install script only when allowed, and the
    // node package's fetches the platform's binary (from the npm registry).
    const manifest = { name: 'mastra-bench-cache', private: true, type: 'module', dependencies: mastraPackages, allowScripts: { node: true } };
    writeFileSync(join(cacheDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    await exec(npm, ['install', '--no-audit', '--no-fund', '--engine-strict=false'], { cwd: cacheDir, maxBuffer: 16 * 1024 * 1024 });
  }
  const { stdout } = await exec(nodeBin, ['--version']);
  if (!stdout.startsWith('v22.')) throw new Error(`${nodeBin} is ${stdout.trim()}, not Node 22`);
  return nodeBin;
}

async function measureOurs(ctx: SuiteContext, config: typeof fullConfig): Promise<{ sequential: Side; concurrent: Side; statementsPerCycle: number }> {
  const bench = await openBenchDatabase(ctx.databaseUrl);
  try {
    const executions = new Executions();
    const agent = benchAgent(bench.db, executions.record);
    const { sequential: seq, concurrent: conc } = config.ours;
    await runCycles(agent, executions, seq.warmup, 1);
    const before = bench.counter.count;
    const sequential = await runCycles(agent, executions, seq.cycles, 1);
    const statementsPerCycle = (bench.counter.count - before) / seq.cycles;
    await runCycles(agent, executions, conc.warmup, config.inFlight);
    const concurrent = await runCycles(agent, executions, conc.cycles, config.inFlight);
    const side = (r: typeof sequential): Side => ({ cyclesPerSec: r.cyclesPerSec, nodeCpuMsPerCycle: r.nodeCpuMsPerCycle });
    return { sequential: side(sequential), concurrent: side(concurrent), statementsPerCycle };
  } finally {
    await bench.close();
  }
}

async function measureMastra(ctx: SuiteContext, nodeBin: string, config: typeof fullConfig): Promise<MastraResult> {
  // A schema of its own, dropped at the end (and on Ctrl-C) like every bench schema; Mastra creates its tables there.
  const bench = await openBenchDatabase(ctx.databaseUrl);
  try {
    const m = config.mastra;
    return await childResult<MastraResult>(nodeBin, ['--no-warnings', childScript], {
      cwd: cacheDir,
      env: {
        ...process.env,
        MASTRA_TELEMETRY_DISABLED: '1',
        MASTRA_CACHE: cacheDir,
        DATABASE_URL: ctx.databaseUrl,
        BENCH_SCHEMA: bench.schema,
        BENCH_POOL_SIZE: String(poolSize),
        BENCH_SEQUENTIAL: `${m.sequential.warmup},${m.sequential.cycles}`,
        BENCH_CONCURRENT: `${m.concurrent.warmup},${m.concurrent.cycles}`,
        BENCH_IN_FLIGHT: String(config.inFlight),
        BENCH_STATEMENT_CYCLES: String(m.statementCycles),
      },
    }, 'MASTRA_RESULT');
  } finally {
    await bench.close();
  }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

export const mastraSuite: Suite = {
  name: 'mastra',
  description: 'The runtime cycle here and on Mastra, side by side (same model, tool and PostgreSQL)',
  referenceLabel: 'Mastra',
  async run(ctx) {
    const config = ctx.quick ? quickConfig : fullConfig;
    const started = performance.now();
    const nodeBin = await ensureMastra(ctx);
    const loadBefore = loadNow(ctx.log);
    const pgVersion = await (async () => {
      const bench = await openBenchDatabase(ctx.databaseUrl);
      try {
        return (await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(bench.admin.db)).rows[0]!.v;
      } finally {
        await bench.close();
      }
    })();
    // Taking turns, so a change in the machine's load meets both sides.
    const ours: Array<Awaited<ReturnType<typeof measureOurs>>> = [];
    const theirs: MastraResult[] = [];
    for (let round = 1; round <= config.rounds; round++) {
      ctx.log(`round ${round}/${config.rounds}: this runtime, ${config.ours.sequential.cycles} sequential + ${config.ours.concurrent.cycles} cycles ${config.inFlight} in flight`);
      ours.push(await measureOurs(ctx, config));
      ctx.log(`round ${round}/${config.rounds}: Mastra, ${config.mastra.sequential.cycles} sequential + ${config.mastra.concurrent.cycles} cycles ${config.inFlight} in flight`);
      theirs.push(await measureMastra(ctx, nodeBin, config));
    }
    const loadAfter = loadavg()[0]!;

    const avg = (sides: Side[]) => ({ cyclesPerSec: mean(sides.map((s) => s.cyclesPerSec)), nodeCpuMsPerCycle: mean(sides.map((s) => s.nodeCpuMsPerCycle)) });
    const oursSeq = avg(ours.map((o) => o.sequential));
    const oursConc = avg(ours.map((o) => o.concurrent));
    const mastraSeq = avg(theirs.map((t) => t.sequential));
    const mastraConc = avg(theirs.map((t) => t.concurrent));
    const ratioSeq = oursSeq.cyclesPerSec / mastraSeq.cyclesPerSec;
    const ratioConc = oursConc.cyclesPerSec / mastraConc.cyclesPerSec;
    const mastraVersion = theirs[0]!.mastraCore;

    const rows: TableRow[] = [
      { metric: 'Cycles/s, sequential', value: fmt(oursSeq.cyclesPerSec), reference: fmt(mastraSeq.cyclesPerSec) },
      { metric: `Cycles/s, ${config.inFlight} in flight`, value: fmt(oursConc.cyclesPerSec), reference: fmt(mastraConc.cyclesPerSec) },
      { metric: 'Ratio, sequential', value: `${fmt(ratioSeq, 1)}×`, target: `≥ ${targets.ratio}×`, ok: ratioSeq >= targets.ratio },
      { metric: `Ratio, ${config.inFlight} in flight`, value: `${fmt(ratioConc, 1)}×`, target: `≥ ${targets.ratio}×`, ok: ratioConc >= targets.ratio },
      {
        metric: 'Node CPU per cycle (sequential / in flight)',
        value: `${fmt(oursSeq.nodeCpuMsPerCycle, 2)} / ${fmt(oursConc.nodeCpuMsPerCycle, 2)} ms`,
        reference: `${fmt(mastraSeq.nodeCpuMsPerCycle, 2)} / ${fmt(mastraConc.nodeCpuMsPerCycle, 2)} ms`,
      },
      { metric: 'SQL statements per cycle', value: fmt(ours[0]!.statementsPerCycle, 1), reference: fmt(theirs[0]!.statementsPerCycle, 1) },
    ];
    const json = {
      suite: 'mastra',
      date: new Date().toISOString(),
      quick: ctx.quick,
      seconds: round((performance.now() - started) / 1000, 1),
      machine: machineInfo(pgVersion, loadBefore, loadAfter),
      config,
      mastra: { core: mastraVersion, pg: theirs[0]!.mastraPg, node: theirs[0]!.node },
      results: {
        ours: { sequential: roundSide(oursSeq), concurrent: roundSide(oursConc), statementsPerCycle: ours[0]!.statementsPerCycle, rounds: ours.map((o) => ({ sequential: roundSide(o.sequential), concurrent: roundSide(o.concurrent) })) },
        mastra: {
          sequential: roundSide(mastraSeq),
          concurrent: roundSide(mastraConc),
          statementsPerCycle: theirs[0]!.statementsPerCycle,
          rounds: theirs.map((t) => ({ sequential: roundSide(t.sequential), concurrent: roundSide(t.concurrent) })),
        },
        ratio: { sequential: round(ratioSeq, 2), concurrent: round(ratioConc, 2) },
      },
      targets,
    };
    const notes = [
      '',
      `Mastra ${mastraVersion} (@mastra/pg ${theirs[0]!.mastraPg}) on Node ${theirs[0]!.node}; this runtime on Node ${process.version}.`,
      `Rounds (ours / Mastra cycles/s, sequential and in flight): ${ours
        .map((o, i) => `${fmt(o.sequential.cyclesPerSec)}/${fmt(theirs[i]!.sequential.cyclesPerSec)}, ${fmt(o.concurrent.cyclesPerSec)}/${fmt(theirs[i]!.concurrent.cyclesPerSec)}`)
        .join('; ')}.`,
      `Load average (1 min): ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after, on ${cpus().length} cores.`,
    ];
    return { rows, json, notes };
  },
};

function roundSide(s: Side): Side {
  return { cyclesPerSec: round(s.cyclesPerSec, 1), nodeCpuMsPerCycle: round(s.nodeCpuMsPerCycle, 3) };
}
