/**
 * A backlog: 10,000 approval requests coming due at once and 1,000 runs left claimed by a stopped
 * instance, swept by two instances. First the runtime alone (the database and the run limit), then
 * the Slack app (two bot processes against the Slack simulator, which limits chat.update as Slack
 * does). See docs/benchmarks.md ("The `backlog` suite").
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { DEFAULT_MAX_CONCURRENT_RUNS } from '../../src/agent/runtime-deps.js';
import { measureRuntimeBacklog } from '../lib/backlog-runtime.js';
import { measureSlackBacklog } from '../lib/backlog-slack.js';
import { openBenchDatabase } from '../lib/bench-db.js';
import { loadNow, machineInfo } from '../lib/machine.js';
import { round } from '../lib/stats.js';
import type { Suite, TableRow } from '../lib/suite.js';

const fullConfig = {
  runtime: { due: 10_000, stale: 1_000, maxConcurrentRuns: DEFAULT_MAX_CONCURRENT_RUNS },
  slack: {
    due: 10_000,
    stale: 1_000,
    maxConcurrentRuns: DEFAULT_MAX_CONCURRENT_RUNS,
    // Tier 3 (chat.update) is about 50 a minute; 20 times that keeps the bench to minutes.
    updateLimit: { perMinute: 1_000, burst: 20 },
    interactiveCycles: 30,
    sweepIntervalMs: 1_000,
  },
};

const quickConfig: typeof fullConfig = {
  runtime: { due: 1_000, stale: 100, maxConcurrentRuns: DEFAULT_MAX_CONCURRENT_RUNS },
  slack: { ...fullConfig.slack, due: 300, stale: 30, interactiveCycles: 5 },
};

const targets = {
  /** Issue 26: 10,000 due requests all marked expired within 10 s, across two instances. */
  dueToAllExpiredMs: 10_000,
};

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const secs = (ms: number) => `${fmt(ms / 1000, 1)} s`;

export const backlogSuite: Suite = {
  name: 'backlog',
  description: 'A backlog swept by two instances: requests coming due at once, runs a stopped instance left',
  referenceLabel: 'Before (100 per 30 s sweep)',
  async run(ctx) {
    const config = ctx.quick ? quickConfig : fullConfig;
    const started = performance.now();
    const loadBefore = loadNow(ctx.log);
    const runtimeDb = await openBenchDatabase(ctx.databaseUrl);
    let runtime: Awaited<ReturnType<typeof measureRuntimeBacklog>>;
    let pgVersion: string;
    try {
      pgVersion = (await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(runtimeDb.admin.db)).rows[0]!.v;
      runtime = await measureRuntimeBacklog(ctx, ctx.databaseUrl, runtimeDb.schema, config.runtime);
    } finally {
      await runtimeDb.close();
    }
    const slackDb = await openBenchDatabase(ctx.databaseUrl);
    let slack: Awaited<ReturnType<typeof measureSlackBacklog>>;
    try {
      slack = await measureSlackBacklog(ctx, ctx.databaseUrl, slackDb.schema, slackDb.db, config.slack);
    } finally {
      await slackDb.close();
    }
    const loadAfter = loadavg()[0]!;

    const r = runtime;
    const s = slack;
    const c = config;
    // One sweep of 100 expiries and 100 takeovers every 30 s, as before.
    const before = (n: number) => `${fmt(Math.ceil(n / 100) * 30 / 60, 1)} min`;
    const slotsOf = (slots: Array<{ maxActive: number; meanActive: number; limit: number }>) =>
      slots.map((x) => `${x.maxActive} max, ${fmt(x.meanActive, 1)} mean`).join(' / ') + ` (limit ${slots[0]!.limit})`;
    const rows: TableRow[] = [
      { metric: `Runtime: ${fmt(c.runtime.due)} due → all expired (two instances)`, value: secs(r.dueToAllExpiredMs), target: `≤ ${secs(targets.dueToAllExpiredMs)}`, ok: r.dueToAllExpiredMs <= targets.dueToAllExpiredMs, reference: before(c.runtime.due) },
      { metric: '  first → last expiry', value: secs(r.firstToLastExpiredMs) },
      { metric: `  due → all ${fmt(c.runtime.due + c.runtime.stale)} runs continued (${fmt(c.runtime.stale)} taken over)`, value: secs(r.dueToAllContinuedMs), reference: before(c.runtime.stale) },
      { metric: '  continuations/s, both instances', value: fmt(r.continuationsPerSec) },
      { metric: '  run slots in use, instance 1 / 2', value: slotsOf(r.slots) },
      { metric: '  SQL statements per continuation', value: fmt(r.statementsPerContinuation, 2) },
      { metric: `Slack: ${fmt(c.slack.due)} due → all expired (two bot processes)`, value: secs(s.dueToAllExpiredMs), target: `≤ ${secs(targets.dueToAllExpiredMs)}`, ok: s.dueToAllExpiredMs <= targets.dueToAllExpiredMs, reference: before(c.slack.due) },
      { metric: `  due → all ${fmt(c.slack.due + c.slack.stale)} runs continued`, value: secs(s.dueToAllContinuedMs) },
      { metric: '  due → every answer and expiry notice shown', value: secs(s.dueToAllAnswersShownMs) },
      { metric: '  answers shown/s, both instances', value: fmt(s.answersShownPerSec, 1) },
      { metric: '  run slots in use, instance 1 / 2', value: slotsOf(s.slots) },
      {
        metric: `  card redraws/min (fake's chat.update limit ${fmt(c.slack.updateLimit.perMinute)}/min, bursts of ${c.slack.updateLimit.burst})`,
        value: fmt(s.redraws.perMinute),
        reference: `${fmt(c.slack.updateLimit.perMinute)}/min`,
      },
      { metric: '  429s from Slack / of them met by the app\'s own client', value: `${Object.entries(s.rateLimited).map(([m, n]) => `${m} ${fmt(n)}`).join(', ') || '0'} / ${fmt(s.appClientRateLimited)}` },
      { metric: `  people's click → answer p50 / p99, idle (n=${s.interactive.before.n})`, value: `${fmt(s.interactive.before.p50, 1)} / ${fmt(s.interactive.before.p99, 1)} ms` },
      { metric: `  … during the backlog (n=${s.interactive.during.n})`, value: `${fmt(s.interactive.during.p50, 1)} / ${fmt(s.interactive.during.p99, 1)} ms` },
    ];
    const json = {
      suite: 'backlog',
      date: new Date().toISOString(),
      quick: ctx.quick,
      seconds: round((performance.now() - started) / 1000, 1),
      machine: machineInfo(pgVersion, loadBefore, loadAfter),
      config,
      results: { runtime: r, slack: s },
      targets,
    };
    const notes = [
      '',
      `Setup: ${fmt(s.setup.requests)} requests posted through Slack in ${fmt(s.setup.seconds, 1)} s. Sweeps every ${fmt(c.slack.sweepIntervalMs)} ms in the Slack half (SWEEP_INTERVAL_MS; 30 s by default), every 1 s in the runtime half.`,
      `At Slack's own Tier 3 (about 50 chat.update a minute) ${fmt(c.slack.due)} redraws take ${fmt(c.slack.due / 50 / 60, 1)} h whatever the bot does; the backlog's client finds that pace and keeps its 429s to itself.`,
      `Load average (1 min): ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after, on ${cpus().length} cores.`,
    ];
    return { rows, json, notes };
  },
};
