import { cpus, loadavg } from 'node:os';
import { loadNow, machineInfo } from '../lib/machine.js';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Agent } from '../../src/agent/agent.js';
import { openBenchDatabase, poolSize, type BenchDatabase } from '../lib/bench-db.js';
import { prefillHistory } from '../lib/prefill.js';
import { approveAndFinish, benchAgent, suspendOne, type Execution } from '../lib/fixture.js';
import { round, roundSummary, summarize } from '../lib/stats.js';
import type { Suite, SuiteContext, TableRow } from '../lib/suite.js';
import { childResult } from '../lib/child-rpc.js';
import type { HeapResult } from '../heap.js';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(benchDir, '..');

const fullConfig = {
  sequential: { warmup: 200, cycles: 2000 },
  concurrent: { warmup: 200, cycles: 4000, inFlight: 20 },
  statements: { warmup: 20, cycles: 200 },
  calibration: { roundTrips: 500 },
  storage: { runs: 200 },
  heap: { warmup: 1000, runs: 1000 },
  /** Cycles against a schema that already holds this many finished and waiting runs. */
  history: { finishedRuns: 50_000, openRuns: 5_000, warmup: 30, cycles: 300 },
  poolSize,
};

/** `--quick`: a smoke run of every measurement with small counts (numbers not comparable). */
const quickConfig: typeof fullConfig = {
  sequential: { warmup: 20, cycles: 100 },
  concurrent: { warmup: 20, cycles: 200, inFlight: 20 },
  statements: { warmup: 5, cycles: 20 },
  calibration: { roundTrips: 50 },
  storage: { runs: 20 },
  heap: { warmup: 100, runs: 100 },
  history: { finishedRuns: 2_000, openRuns: 200, warmup: 9, cycles: 45 },
  poolSize,
};

let config = fullConfig;

const targets = {
  sequentialCyclesPerSec: 250,
  concurrentCyclesPerSec: 600,
  approveToExecuteP50Ms: 1.5,
  statementsPerSuspendedRun: 8,
  bytesPerSuspendedRun: 2048,
  heapBytesPerSuspendedRun: 0,
};


/** Tracks `execute` calls so each cycle can check its tool ran exactly once. */
export class Executions {
  private readonly byRun = new Map<string, { count: number; at: number }>();
  total = 0;

  readonly record = (e: Execution): void => {
    this.total += 1;
    const seen = this.byRun.get(e.runId);
    if (seen) seen.count += 1;
    else this.byRun.set(e.runId, { count: 1, at: e.at });
  };

  /** The start time of the run's one execution; throws unless there was exactly one. */
  take(runId: string): number {
    const seen = this.byRun.get(runId);
    if (!seen || seen.count !== 1) throw new Error(`run ${runId}: tool executed ${seen?.count ?? 0} times, expected 1`);
    this.byRun.delete(runId);
    return seen.at;
  }

  /** Executions not yet claimed by a cycle (should be none once all cycles are done). */
  get stray(): number {
    return this.byRun.size;
  }
}

interface CycleTiming {
  suspendMs: number;
  approveToExecuteMs: number;
  cycleMs: number;
  /** performance.now() when the cycle finished. */
  endedAt: number;
}

let recordCounter = 0;

/** stream → suspended → approveToolCall → final text, with the exactly-once check. */
async function cycle(agent: Agent, executions: Executions): Promise<CycleTiming> {
  const recordId = `r${++recordCounter}`;
  const t0 = performance.now();
  const runId = await suspendOne(agent, recordId);
  const t1 = performance.now();
  await approveAndFinish(agent, runId, recordId);
  const t2 = performance.now();
  const executedAt = executions.take(runId);
  return { suspendMs: t1 - t0, approveToExecuteMs: executedAt - t1, cycleMs: t2 - t0, endedAt: t2 };
}

/** `count` cycles from `inFlight` concurrent loops: rate, Node CPU per cycle (process.cpuUsage, user + system) and each cycle's timings. */
export async function runCycles(agent: Agent, executions: Executions, count: number, inFlight: number) {
  const timings: CycleTiming[] = [];
  let started = 0;
  const executedBefore = executions.total;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      while (started < count) {
        started += 1;
        timings.push(await cycle(agent, executions));
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const nodeCpuMsPerCycle = (cpu.user + cpu.system) / 1000 / count;
  const executed = executions.total - executedBefore;
  if (executed !== count || timings.length !== count) {
    throw new Error(`${count} cycles ran the tool ${executed} times (${timings.length} cycles finished)`);
  }
  // Rate of each quarter of the run: shows whether other load on the machine came and went.
  const quarters: number[] = [];
  let from = t0;
  for (let q = 1; q <= 4; q++) {
    const end = timings[Math.ceil((q * count) / 4) - 1]!.endedAt;
    quarters.push(round(count / 4 / ((end - from) / 1000), 1));
    from = end;
  }
  return { cycles: count, inFlight, seconds, cyclesPerSec: count / seconds, quarterCyclesPerSec: quarters, nodeCpuMsPerCycle, timings };
}

async function measureThroughput(ctx: SuiteContext, bench: BenchDatabase) {
  const executions = new Executions();
  const agent = benchAgent(bench.db, executions.record);
  const { sequential: seq, concurrent: conc } = config;

  ctx.log(`sequential: ${seq.warmup} warm-up + ${seq.cycles} cycles`);
  await runCycles(agent, executions, seq.warmup, 1);
  const sequential = await runCycles(agent, executions, seq.cycles, 1);

  ctx.log(`concurrent: ${conc.warmup} warm-up + ${conc.cycles} cycles, ${conc.inFlight} in flight`);
  await runCycles(agent, executions, conc.warmup, conc.inFlight);
  const statementsBefore = bench.counter.count;
  const concurrent = await runCycles(agent, executions, conc.cycles, conc.inFlight);
  const concurrentStatements = (bench.counter.count - statementsBefore) / conc.cycles;

  await new Promise((r) => setTimeout(r, 50));
  if (executions.stray !== 0) throw new Error(`${executions.stray} tool executions belong to no cycle`);
  return { sequential, concurrent, concurrentStatements };
}

async function measureStatements(ctx: SuiteContext, bench: BenchDatabase) {
  const executions = new Executions();
  const agent = benchAgent(bench.db, executions.record);
  ctx.log(`statements: ${config.statements.cycles} sequential cycles, each statement timed`);
  for (let i = 0; i < config.statements.warmup; i++) await cycle(agent, executions);
  const suspend: number[] = [];
  const approve: number[] = [];
  let order: { suspend: string[]; approve: string[] } | undefined;
  const timings = new Map<string, number[]>();
  bench.counter.timings = timings;
  for (let i = 0; i < config.statements.cycles; i++) {
    const log: string[] = [];
    if (i === 0) bench.counter.log = log;
    const recordId = `s${i}`;
    const c0 = bench.counter.count;
    const runId = await suspendOne(agent, recordId);
    const c1 = bench.counter.count;
    const split = log.length;
    await approveAndFinish(agent, runId, recordId);
    const c2 = bench.counter.count;
    executions.take(runId);
    suspend.push(c1 - c0);
    approve.push(c2 - c1);
    if (i === 0) {
      bench.counter.log = undefined;
      order = { suspend: log.slice(0, split), approve: log.slice(split) };
    }
  }
  bench.counter.timings = undefined;
  // Anything the run still sends after its stream finished would land here.
  const settle = bench.counter.count;
  await new Promise((r) => setTimeout(r, 100));
  const late = bench.counter.count - settle;
  const constant = (xs: number[]) => (Math.min(...xs) === Math.max(...xs) ? xs[0]! : `${Math.min(...xs)}–${Math.max(...xs)}`);
  const describe = (texts: string[]) =>
    texts.map((text) => {
      const t = summarize(timings.get(text) ?? []);
      return { statement: describeStatement(text), p50Ms: round(t.p50, 3), p99Ms: round(t.p99, 3) };
    });
  return {
    perCycle: constant(suspend.map((s, i) => s + approve[i]!)),
    whileSuspending: constant(suspend),
    approveToFinish: constant(approve),
    afterFinish: late,
    trace: { suspend: describe(order!.suspend), approve: describe(order!.approve) },
  };
}

/** Round trips of the bare driver on the same pool: the floor every statement above pays. */
async function measureCalibration(ctx: SuiteContext, bench: BenchDatabase) {
  const n = config.calibration.roundTrips;
  ctx.log(`calibration: ${n} × SELECT 1, ${n} × one-row INSERT (autocommit)`);
  await sql`CREATE TABLE bench_calibration (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text NOT NULL)`.execute(bench.db);
  const time = async (fn: () => Promise<unknown>) => {
    const xs: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await fn();
      xs.push(performance.now() - t);
    }
    return roundSummary(summarize(xs));
  };
  const select1 = await time(() => sql`SELECT 1`.execute(bench.db));
  const insertCommit = await time(() => sql`INSERT INTO bench_calibration (v) VALUES (${'x'})`.execute(bench.db));
  return { select1Ms: select1, insertCommitMs: insertCommit };
}

/** Where the statements of a cycle come from in src/ (a guess by shape; unknown ones get a generic label). */
const knownStatements: Array<[RegExp, string]> = [
  [/^with snaps as \( insert into run_snapshots/, 'persistSuspension (db/run-snapshots.ts)'],
  [/from pending_actions where root_run_id = \$1 and kind = any\(/, 'findDecisionTarget (db/pending-actions.ts)'],
  [/^with upd as \( update pending_actions set approvals = approvals/, 'recordApprovalVote (db/pending-actions.ts)'],
  [/^update run_snapshots set status = 'running'/, 'takeRunLease (db/run-snapshots.ts)'],
  [/^select distinct on \(tool_call_id\)/, 'latestActionsOfRun (db/pending-actions.ts)'],
  [/from pending_actions where id = \$1$/, 'findAction (db/pending-actions.ts)'],
  [/^with g as \( update approval_grants set consumed_at/, 'consumeGrant (db/grants.ts)'],
  [/^insert into "audit_events"/, 'appendAudit (db/audit.ts)'],
  [/^with (del as \(delete from run_snapshots|parent as \( update pending_actions|mem as \( insert into thread_messages)/, 'endRun (db/run-snapshots.ts)'],
];

/** A short label for a statement: the src/ function it comes from, or its verb and tables. */
function describeStatement(text: string): string {
  const lower = text.toLowerCase();
  const known = knownStatements.find(([pattern]) => pattern.test(lower));
  if (known) return known[1];
  if (/^(begin|commit|rollback)\b/.test(lower)) return lower.split(' ')[0]!.toUpperCase();
  const verbs = [...lower.matchAll(/\b(insert into|update|delete from|select)\s+(?:distinct on \([^)]*\)\s+)?"?([a-z_]+)?/g)];
  const tables = [...lower.matchAll(/\b(?:into|update|from)\s+"?([a-z_]+)"?/g)]
    .map((m) => m[1]!)
    .filter((t) => ['run_snapshots', 'pending_actions', 'approval_grants', 'audit_events', 'thread_messages'].includes(t));
  const head = lower.startsWith('with') ? 'WITH' : (verbs[0]?.[1] ?? lower.split(' ')[0]!).toUpperCase();
  return `${head} ${[...new Set(tables)].join(', ')}`.trim();
}

const storageTables = ['run_snapshots', 'pending_actions', 'approval_grants', 'audit_events', 'thread_messages'] as const;

async function rowBytes(bench: BenchDatabase, runIds: string[]) {
  const db = bench.admin.db;
  const out: Record<string, { rows: number; bytes: number }> = {};
  for (const table of storageTables) {
    // thread_messages has no run id; these runs have no thread, so nothing can belong to them there.
    const where = table === 'thread_messages' ? sql`false` : sql`t.run_id = ANY(${runIds}::text[])`;
    const r = await sql<{ rows: string; bytes: string | null }>`
      SELECT count(*) AS rows, sum(pg_column_size(t.*)) AS bytes FROM ${sql.table(table)} t WHERE ${where}
    `.execute(db);
    out[table] = { rows: Number(r.rows[0]!.rows), bytes: Number(r.rows[0]!.bytes ?? 0) };
  }
  return out;
}

async function relationBytes(bench: BenchDatabase): Promise<number> {
  const r = await sql<{ bytes: string }>`
    SELECT sum(pg_total_relation_size(c.oid)) AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${bench.schema} AND c.relname = ANY(${[...storageTables]}::text[])
  `.execute(bench.admin.db);
  return Number(r.rows[0]!.bytes);
}

async function measureStorage(ctx: SuiteContext, bench: BenchDatabase) {
  const n = config.storage.runs;
  ctx.log(`storage: ${n} suspended runs in a fresh schema`);
  const executions = new Executions();
  const agent = benchAgent(bench.db, executions.record);
  const before = await relationBytes(bench);
  const runIds: string[] = [];
  for (let i = 0; i < n; i++) runIds.push(await suspendOne(agent, `st${i}`));
  const tablesSuspended = await rowBytes(bench, runIds);
  const afterSuspend = await relationBytes(bench);
  for (let i = 0; i < n; i++) {
    await approveAndFinish(agent, runIds[i]!, `st${i}`);
    executions.take(runIds[i]!);
  }
  const tablesFinished = await rowBytes(bench, runIds);
  const total = (t: Record<string, { bytes: number }>) => Object.values(t).reduce((s, v) => s + v.bytes, 0);
  const perRun = (t: Record<string, { rows: number; bytes: number }>) =>
    Object.fromEntries(Object.entries(t).map(([k, v]) => [k, { rows: round(v.rows / n, 2), bytes: round(v.bytes / n, 1) }]));
  return {
    runs: n,
    rowBytesPerSuspendedRun: round(total(tablesSuspended) / n, 1),
    relationBytesPerSuspendedRun: round((afterSuspend - before) / n, 1),
    perTableWhileSuspended: perRun(tablesSuspended),
    rowBytesLeftPerFinishedRun: round(total(tablesFinished) / n, 1),
    perTableAfterFinish: perRun(tablesFinished),
  };
}

type ApproveBy = 'runId' | 'toolCallId' | 'actionId';
const approveModes: ApproveBy[] = ['runId', 'toolCallId', 'actionId'];

/**
 * The same sequential cycle against a schema with a history: what a bot sees after
 * months in production. Cycles take turns approving by run id (the API's usual call),
 * by run id + tool call id, and by action id (what the Slack buttons send).
 */
async function measureWithHistory(ctx: SuiteContext, bench: BenchDatabase) {
  const h = config.history;
  ctx.log(`history: ${h.finishedRuns} finished + ${h.openRuns} waiting runs prefilled, then ${h.cycles} cycles`);
  const executions = new Executions();
  const agent = benchAgent(bench.db, executions.record);
  const finishedRunId = await suspendOne(agent, 'tpl0');
  await approveAndFinish(agent, finishedRunId, 'tpl0');
  executions.take(finishedRunId);
  const suspendedRunId = await suspendOne(agent, 'tpl1');
  await prefillHistory(bench.admin.db, { finishedRunId, suspendedRunId }, { finished: h.finishedRuns, open: h.openRuns });
  const latency: Record<ApproveBy, number[]> = { runId: [], toolCallId: [], actionId: [] };
  const timings: Record<ApproveBy, Map<string, number[]>> = { runId: new Map(), toolCallId: new Map(), actionId: new Map() };
  const cycleMs: number[] = [];
  for (let i = 0; i < h.warmup + h.cycles; i++) {
    const recordId = `hist${i}`;
    const by = approveModes[i % approveModes.length]!;
    bench.counter.timings = i < h.warmup ? undefined : timings[by];
    const t0 = performance.now();
    const stream = await agent.stream(`delete record ${recordId}`);
    let actionId: number | undefined;
    for await (const chunk of stream.fullStream) if (chunk.type === 'tool-call-approval') actionId = chunk.payload.actionId;
    const suspended = await stream.result;
    if (suspended.finishReason !== 'suspended' || actionId === undefined) throw new Error(`run ${stream.runId} did not suspend`);
    const t1 = performance.now();
    const resumed = await agent.approveToolCall(
      by === 'runId'
        ? { runId: stream.runId }
        : by === 'toolCallId'
          ? { runId: stream.runId, toolCallId: suspended.pending[0]!.toolCallId }
          : { runId: '', actionId },
    );
    const done = await resumed.result;
    if (done.text !== `Deleted ${recordId}.`) throw new Error(`run ${stream.runId} did not finish: ${done.finishReason}`);
    const t2 = performance.now();
    const executedAt = executions.take(stream.runId);
    if (i < h.warmup) continue;
    latency[by].push(executedAt - t1);
    cycleMs.push(t2 - t0);
  }
  bench.counter.timings = undefined;
  const cycle = summarize(cycleMs);
  const statementP50 = (map: Map<string, number[]>) =>
    Object.fromEntries([...map].map(([text, ms]) => [describeStatement(text), round(summarize(ms).p50, 3)]));
  return {
    finishedRuns: h.finishedRuns,
    openRuns: h.openRuns,
    cycles: h.cycles,
    cyclesPerSec: round(1000 / cycle.mean, 1),
    cycleMs: roundSummary(cycle),
    approveToExecuteMs: {
      byRunId: roundSummary(summarize(latency.runId)),
      byRunIdAndToolCallId: roundSummary(summarize(latency.toolCallId)),
      byActionId: roundSummary(summarize(latency.actionId)),
    },
    statementP50Ms: {
      byRunId: statementP50(timings.runId),
      byRunIdAndToolCallId: statementP50(timings.toolCallId),
      byActionId: statementP50(timings.actionId),
    },
  };
}

async function measureHeap(ctx: SuiteContext): Promise<HeapResult> {
  ctx.log(`heap: child process, ${config.heap.runs} suspended runs`);
  return childResult<HeapResult>(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(benchDir, 'heap.ts')],
    { cwd: repoRoot, env: { ...process.env, DATABASE_URL: ctx.databaseUrl, BENCH_HEAP_WARMUP: String(config.heap.warmup), BENCH_HEAP_RUNS: String(config.heap.runs) } },
    'HEAP_RESULT',
  );
}

async function withBench<T>(ctx: SuiteContext, fn: (bench: BenchDatabase) => Promise<T>): Promise<T> {
  const bench = await openBenchDatabase(ctx.databaseUrl);
  try {
    return await fn(bench);
  } finally {
    await bench.close();
  }
}

async function postgresVersion(ctx: SuiteContext): Promise<string> {
  return withBench(ctx, async (bench) => {
    const r = await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(bench.admin.db);
    return r.rows[0]!.v;
  });
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const kb = (bytes: number) => `${fmt(bytes / 1024, 2)} KB`;

export const runtimeSuite: Suite = {
  name: 'runtime',
  description: 'Approval cycles against PostgreSQL with a zero-latency model',
  async run(ctx) {
    config = ctx.quick ? quickConfig : fullConfig;
    const started = performance.now();
    const loadBefore = loadNow(ctx.log);
    const pgVersion = await postgresVersion(ctx);
    const storage = await withBench(ctx, (bench) => measureStorage(ctx, bench));
    const { calibration, statements, throughput } = await withBench(ctx, async (bench) => ({
      calibration: await measureCalibration(ctx, bench),
      statements: await measureStatements(ctx, bench),
      throughput: await measureThroughput(ctx, bench),
    }));
    const history = await withBench(ctx, (bench) => measureWithHistory(ctx, bench));
    const heap = await measureHeap(ctx);
    const loadAfter = loadavg()[0]!;

    const seq = throughput.sequential;
    const conc = throughput.concurrent;
    const a2e = roundSummary(summarize(seq.timings.map((t) => t.approveToExecuteMs)));
    const a2eConc = roundSummary(summarize(conc.timings.map((t) => t.approveToExecuteMs)));
    const seqCycle = roundSummary(summarize(seq.timings.map((t) => t.cycleMs)));
    const seqSuspend = roundSummary(summarize(seq.timings.map((t) => t.suspendMs)));
    const concCycle = roundSummary(summarize(conc.timings.map((t) => t.cycleMs)));
    const perCycle = typeof statements.perCycle === 'number' ? statements.perCycle : NaN;

    const rows: TableRow[] = [
      {
        metric: `Cycles/s, sequential (${seq.cycles})`,
        value: fmt(seq.cyclesPerSec, 0),
        target: `≥ ${targets.sequentialCyclesPerSec}`,
        ok: seq.cyclesPerSec >= targets.sequentialCyclesPerSec,
      },
      {
        metric: `Cycles/s, ${conc.inFlight} in flight (${conc.cycles})`,
        value: fmt(conc.cyclesPerSec, 0),
        target: `≥ ${targets.concurrentCyclesPerSec}`,
        ok: conc.cyclesPerSec >= targets.concurrentCyclesPerSec,
      },
      {
        metric: 'approve → execute p50 (sequential)',
        value: `${fmt(a2e.p50, 2)} ms`,
        target: `≤ ${targets.approveToExecuteP50Ms} ms`,
        ok: a2e.p50 <= targets.approveToExecuteP50Ms,
      },
      { metric: 'approve → execute p99 (sequential)', value: `${fmt(a2e.p99, 2)} ms` },
      { metric: `approve → execute p50 / p99 (${conc.inFlight} in flight)`, value: `${fmt(a2eConc.p50, 2)} / ${fmt(a2eConc.p99, 2)} ms` },
      {
        metric: `approve → execute p50, ${fmt(history.finishedRuns / 1000)}k runs in history`,
        value: `${fmt(history.approveToExecuteMs.byRunId.p50, 2)} ms`,
        target: `≤ ${targets.approveToExecuteP50Ms} ms`,
        ok: history.approveToExecuteMs.byRunId.p50 <= targets.approveToExecuteP50Ms,
      },
      {
        metric: '  … by runId + toolCallId / by actionId (Slack)',
        value: `${fmt(history.approveToExecuteMs.byRunIdAndToolCallId.p50, 2)} / ${fmt(history.approveToExecuteMs.byActionId.p50, 2)} ms`,
      },
      { metric: '  … cycles/s (sequential)', value: fmt(history.cyclesPerSec, 0) },
      { metric: 'Full cycle p50 / p99 (sequential)', value: `${fmt(seqCycle.p50, 2)} / ${fmt(seqCycle.p99, 2)} ms` },
      { metric: 'stream → suspended p50 / p99 (sequential)', value: `${fmt(seqSuspend.p50, 2)} / ${fmt(seqSuspend.p99, 2)} ms` },
      { metric: 'Node CPU per cycle (sequential / in flight)', value: `${fmt(seq.nodeCpuMsPerCycle, 2)} / ${fmt(conc.nodeCpuMsPerCycle, 2)} ms` },
      {
        metric: 'Floor: SELECT 1 / 1-row INSERT p50',
        value: `${fmt(calibration.select1Ms.p50, 2)} / ${fmt(calibration.insertCommitMs.p50, 2)} ms`,
      },
      {
        metric: 'SQL statements per complete cycle',
        value: String(statements.perCycle),
        target: `≤ ${targets.statementsPerSuspendedRun}`,
        ok: perCycle <= targets.statementsPerSuspendedRun,
      },
      { metric: '  … of which while suspending', value: String(statements.whileSuspending) },
      {
        metric: 'Row bytes per suspended run',
        value: `${fmt(storage.rowBytesPerSuspendedRun)} B`,
        target: `≤ ${kb(targets.bytesPerSuspendedRun)}`,
        ok: storage.rowBytesPerSuspendedRun <= targets.bytesPerSuspendedRun,
      },
      { metric: 'Table+index growth per suspended run', value: `${fmt(storage.relationBytesPerSuspendedRun)} B` },
      { metric: 'Row bytes left per finished run (audit trail)', value: `${fmt(storage.rowBytesLeftPerFinishedRun)} B` },
      {
        metric: 'Heap retained per suspended run',
        value: `${fmt(heap.bytesPerRun)} B`,
        target: '≈ 0',
        ok: heap.bytesPerRun < 256,
      },
    ];

    const json = {
      suite: 'runtime',
      date: new Date().toISOString(),
      quick: ctx.quick,
      seconds: round((performance.now() - started) / 1000, 1),
      machine: machineInfo(pgVersion, loadBefore, loadAfter),
      config,
      results: {
        calibration,
        sequential: {
          cycles: seq.cycles,
          seconds: round(seq.seconds, 3),
          cyclesPerSec: round(seq.cyclesPerSec, 1),
          quarterCyclesPerSec: seq.quarterCyclesPerSec,
          nodeCpuMsPerCycle: round(seq.nodeCpuMsPerCycle, 3),
          cycleMs: seqCycle,
          suspendMs: seqSuspend,
        },
        concurrent: {
          cycles: conc.cycles,
          inFlight: conc.inFlight,
          seconds: round(conc.seconds, 3),
          cyclesPerSec: round(conc.cyclesPerSec, 1),
          quarterCyclesPerSec: conc.quarterCyclesPerSec,
          nodeCpuMsPerCycle: round(conc.nodeCpuMsPerCycle, 3),
          poolSize: config.poolSize,
          cycleMs: concCycle,
          statementsPerCycle: round(throughput.concurrentStatements, 2),
        },
        approveToExecuteMs: { sequential: a2e, concurrent: a2eConc },
        statements: {
          perCycle: statements.perCycle,
          whileSuspending: statements.whileSuspending,
          approveToFinish: statements.approveToFinish,
          afterFinish: statements.afterFinish,
          trace: statements.trace,
        },
        storage,
        history,
        heap,
      },
      targets,
    };
    const trace = statements.trace;
    const notes = [
      '',
      `Statements of one cycle (p50 / p99 round trip, ${config.statements.cycles} cycles):`,
      ...trace.suspend.map((t, i) => `  suspend ${i + 1}. ${t.statement.padEnd(48)} ${fmt(t.p50Ms, 2)} / ${fmt(t.p99Ms, 2)} ms`),
      ...trace.approve.map((t, i) => `  approve ${i + 1}. ${t.statement.padEnd(48)} ${fmt(t.p50Ms, 2)} / ${fmt(t.p99Ms, 2)} ms`),
      '',
      `With ${fmt(history.finishedRuns)} finished + ${fmt(history.openRuns)} waiting runs in the tables (p50 ms, approving by runId / runId + toolCallId / actionId):`,
      ...[...new Set(Object.values(history.statementP50Ms).flatMap((m) => Object.keys(m)))].map((label) => {
        const cell = (m: Record<string, number>) => (m[label] === undefined ? '—' : fmt(m[label]!, 2));
        const { byRunId, byRunIdAndToolCallId, byActionId } = history.statementP50Ms;
        return `  ${label.padEnd(56)} ${cell(byRunId)} / ${cell(byRunIdAndToolCallId)} / ${cell(byActionId)}`;
      }),
      `Load average (1 min): ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after, on ${cpus().length} cores.`,
    ];
    return { rows, json, notes };
  },
};
