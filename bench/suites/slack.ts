/**
 * The Slack front end under load: the real Bolt HTTP endpoint, signed Events API and
 * interactivity requests, the fake Slack Web API on loopback, PostgreSQL, and the bench's
 * zero-latency scripted model. The bot, the fake and this process (Slack's delivery side and
 * the clock) each run in their own process; see bench/lib/slack-harness.ts and
 * docs/benchmarks.md ("The `slack` suite").
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { openBenchDatabase } from '../lib/bench-db.js';
import { loadNow, machineInfo } from '../lib/machine.js';
import { APPROVERS, Executions, fullConfig, quickConfig, type Env } from '../lib/slack-bench-env.js';
import { measureClicks } from '../lib/slack-clicks.js';
import { measureCyclesSideBySide } from '../lib/slack-cycles.js';
import { startSlackHarness, type SlackHarness } from '../lib/slack-harness.js';
import { round, type Summary } from '../lib/stats.js';
import type { Suite, TableRow } from '../lib/suite.js';

const targets = {
  concurrentCyclesPerSec: 150,
  /** The cycle's share of the floor's cycles/s, sequential and in flight. */
  shareOfFloor: 0.6,
  botCpuMsPerCycle: 5,
  sqlStatementsPerCycle: 7,
  slackCallsPerCycle: 4,
};

type Cycles = Awaited<ReturnType<typeof measureCyclesSideBySide>>['bot']['concurrent'];

/**
 * CPU per cycle of every measured process but the bot; null where PostgreSQL's could not be read
 * (no /proc), since without it the figure would leave PostgreSQL's share to the bot.
 */
function othersCpuMs(c: Cycles): number | null {
  const { fakeSlack, driver, postgres } = c.cpuMsPerCycle;
  return postgres === null ? null : fakeSlack + driver + postgres;
}

/**
 * The bot CPU per cycle in flight at which the cycle would reach `share` of the floor's cycles/s:
 * in flight, cycles/s is the cores' CPU over every process's CPU per cycle, so at the floor's
 * machine use the cycle may cost all processes together at most the floor's total ÷ `share`, and
 * what the others (fake Slack, driver, PostgreSQL) spend of it is measured, not up to the bot.
 * Null when PostgreSQL's CPU was not measured.
 */
function botBudgetMs(conc: Cycles, floor: Cycles, share: number): number | null {
  const ours = othersCpuMs(conc);
  const floors = othersCpuMs(floor);
  return ours === null || floors === null ? null : (floor.cpuMsPerCycle.bot + floors) / share - ours;
}

/** Slack's own limit, for scale: a request not acknowledged within 3 s counts as failed (and events are retried). */
const slackAckDeadlineMs = 3000;


const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (n: number) => `${fmt(n, 2)} ms`;
const pair = (s: Pick<Summary, 'p50' | 'p99'>) => `${fmt(s.p50, 2)} / ${fmt(s.p99, 2)} ms`;

export const slackSuite: Suite = {
  name: 'slack',
  description: 'The Slack front end (Bolt over HTTP, signed requests, fake Web API) against PostgreSQL with a zero-latency model',
  referenceLabel: 'Slack limit',
  async run(ctx) {
    const config = ctx.quick ? quickConfig : fullConfig;
    const started = performance.now();
    const loadBefore = loadNow(ctx.log);
    const bench = await openBenchDatabase(ctx.databaseUrl);
    let h: SlackHarness | undefined;
    try {
      const pg = await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(bench.admin.db);
      // The bot works in this schema through its own pool; ours stays idle.
      h = await startSlackHarness({ databaseUrl: ctx.databaseUrl, schema: bench.schema, approvers: APPROVERS });
      const executions = new Executions();
      h.onExecuted(executions.record);
      const env: Env = { h, executions, config };

      const clicks = await measureClicks(ctx, env);
      const sideBySide = await measureCyclesSideBySide(ctx, env);
      const cycles = sideBySide.bot;
      const floorCycles = sideBySide.floor;

      await h.settle();
      if (executions.stray !== 0) throw new Error(`${executions.stray} tool executions belong to no card`);
      const totals = h.traffic.totals;
      if (totals.failed.length > 0) throw new Error(`the fake Slack refused ${totals.failed.length} calls: ${totals.failed.slice(0, 5).join('; ')}`);
      if (totals.unwatched > 0) throw new Error(`${totals.unwatched} thread messages arrived after their cycle was over`);
      const loadAfter = loadavg()[0]!;

      const dc = clicks.distinctCards;
      const sc = clicks.sameCard;
      const seq = cycles.sequential;
      const conc = cycles.concurrent;
      const fl = clicks.floors;
      const fc = floorCycles;
      const pgCpu = (c: Cycles) => (c.cpuMsPerCycle.postgres === null ? '—' : fmt(c.cpuMsPerCycle.postgres, 1));
      const share = sideBySide.shareOfFloor;
      const budgetMs = botBudgetMs(conc, fc.concurrent, targets.shareOfFloor);
      const budget = budgetMs === null ? null : round(budgetMs, 2);
      const busy = (c: Cycles) => (c.machineBusy === null ? '' : `, machine ${fmt(c.machineBusy * 100)} % busy`);
      const rows: TableRow[] = [
        {
          metric: `Click → ack p50, ${dc.clicksPerRound} clicks at once on distinct cards (n=${dc.ackMs.n})`,
          value: ms(dc.ackMs.p50),
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        {
          metric: '  … p99',
          value: ms(dc.ackMs.p99),
          // Slack's deadline is the bound: 50 clicks at once each record a decision before their ack,
          // and Bolt acking alone (the floor below) already takes longer than a few ms at p99.
          target: `≤ ${fmt(slackAckDeadlineMs)} ms`,
          ok: dc.ackMs.p99 <= slackAckDeadlineMs,
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        { metric: '  … in the bot: queued / Bolt until ack, p50', value: `${fmt(dc.queuedMs.p50, 2)} / ${ms(dc.handledMs.p50)}` },
        {
          metric: `Click → ack p50, ${sc.clicksPerRound} clicks at once on one card (n=${sc.ackMs.n})`,
          value: ms(sc.ackMs.p50),
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        {
          metric: '  … p99',
          value: ms(sc.ackMs.p99),
          target: `≤ ${fmt(slackAckDeadlineMs)} ms`,
          ok: sc.ackMs.p99 <= slackAckDeadlineMs,
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        { metric: '  … in the bot: queued / Bolt until ack, p50', value: `${fmt(sc.queuedMs.p50, 2)} / ${ms(sc.handledMs.p50)}` },
        { metric: 'Floor: bare node:http, same bursts, p50 / p99', value: pair(fl.bareHttp.ackMs) },
        { metric: 'Floor: Bolt, ack-only listener, p50 / p99', value: pair(fl.boltAckOnly.ackMs) },
        {
          metric: '  server CPU per request, bare node:http / Bolt ack-only',
          value: `${fmt(fl.bareHttp.cpuUsPerRequest)} / ${fmt(fl.boltAckOnly.cpuUsPerRequest)} µs`,
        },
        {
          metric: `  … × ${dc.clicksPerRound}: Bolt's CPU alone for one burst`,
          value: ms((fl.boltAckOnly.cpuUsPerRequest * dc.clicksPerRound) / 1000),
        },
        { metric: `Click → answer in thread p50 / p99 (${dc.clicksPerRound} at once)`, value: pair(dc.clickToAnswerMs) },
        { metric: `Cycles/s, sequential (median of ${seq.rounds.length} × ${seq.cycles})`, value: fmt(seq.cyclesPerSec) },
        {
          metric: '  each round: cycles/s · bot CPU ms per cycle',
          value: seq.rounds.map((r) => `${fmt(r.cyclesPerSec)} · ${fmt(r.botCpuMsPerCycle, 2)}`).join(' / '),
        },
        {
          metric: `Cycles/s, ${conc.inFlight} in flight (${conc.cycles})`,
          value: fmt(conc.cyclesPerSec),
          target: `≥ ${targets.concurrentCyclesPerSec}`,
          ok: conc.cyclesPerSec >= targets.concurrentCyclesPerSec,
        },
        { metric: 'Full cycle p50 / p99 (sequential)', value: pair(seq.cycleMs) },
        { metric: '  mention → card p50 / p99', value: pair(seq.mentionToCardMs) },
        { metric: '  click → answer p50 / p99', value: pair(seq.clickToAnswerMs) },
        { metric: '  mention ack / click ack p50', value: `${fmt(seq.mentionAckMs.p50, 2)} / ${ms(seq.clickAckMs.p50)}`, reference: `${fmt(slackAckDeadlineMs)} ms` },
        { metric: `Full cycle p50 / p99 (${conc.inFlight} in flight)`, value: pair(conc.cycleMs) },
        {
          metric: `  mention ack / click ack p99 (${conc.inFlight} in flight)`,
          value: `${fmt(conc.mentionAckMs.p99, 2)} / ${ms(conc.clickAckMs.p99)}`,
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        {
          metric: 'Bot process CPU per cycle (sequential / in flight)',
          value: `${fmt(seq.cpuMsPerCycle.bot, 2)} / ${ms(conc.cpuMsPerCycle.bot)}`,
          target: `≤ ${fmt(targets.botCpuMsPerCycle)} ms`,
          ok: Math.max(seq.cpuMsPerCycle.bot, conc.cpuMsPerCycle.bot) <= targets.botCpuMsPerCycle,
        },
        {
          metric: `  fake Slack / driver / postgres, in flight`,
          value: `${fmt(conc.cpuMsPerCycle.fakeSlack, 2)} / ${fmt(conc.cpuMsPerCycle.driver, 2)} / ${pgCpu(conc)} ms${busy(conc)}`,
        },
        {
          metric: 'SQL statements per cycle (sequential / in flight)',
          value: `${fmt(seq.sqlStatementsPerCycle, 1)} / ${fmt(conc.sqlStatementsPerCycle, 1)}`,
          target: `≤ ${targets.sqlStatementsPerCycle}`,
          // As shown: the odd statement outside the cycle (a Home refresh, say) is about 0.01 a cycle.
          ok: round(Math.max(seq.sqlStatementsPerCycle, conc.sqlStatementsPerCycle), 1) <= targets.sqlStatementsPerCycle,
        },
        {
          metric: 'Slack Web API calls per cycle',
          value: fmt(seq.slackCallsPerCycle, 1),
          target: `≤ ${targets.slackCallsPerCycle}`,
          ok: round(seq.slackCallsPerCycle, 1) <= targets.slackCallsPerCycle,
        },
        {
          metric: `Floor: Bolt + WebClient only, cycles/s sequential / ${fc.concurrent.inFlight} in flight`,
          value: `${fmt(fc.sequential.cyclesPerSec)} / ${fmt(fc.concurrent.cyclesPerSec)}`,
        },
        { metric: '  full cycle p50 / p99 (in flight)', value: pair(fc.concurrent.cycleMs) },
        {
          metric: '  floor process CPU per cycle (sequential / in flight)',
          value: `${fmt(fc.sequential.cpuMsPerCycle.bot, 2)} / ${ms(fc.concurrent.cpuMsPerCycle.bot)}`,
        },
        {
          metric: '  fake Slack / driver, in flight',
          value: `${fmt(fc.concurrent.cpuMsPerCycle.fakeSlack, 2)} / ${ms(fc.concurrent.cpuMsPerCycle.driver)}${busy(fc.concurrent)}`,
        },
        { metric: '  Slack Web API calls per cycle', value: fmt(fc.sequential.slackCallsPerCycle, 1) },
        {
          metric: 'Cycles/s ÷ floor, sequential / in flight',
          value: `${fmt(share.sequential * 100)} / ${fmt(share.concurrent * 100)} %`,
          target: `≥ ${fmt(targets.shareOfFloor * 100)} %`,
          ok: Math.min(share.sequential, share.concurrent) >= targets.shareOfFloor,
        },
        { metric: '  each sequential round over the floor round after it', value: `${share.sequentialRounds.map((r) => fmt(r * 100)).join(' / ')} %` },
        {
          metric: `  bot CPU a cycle in flight at ${fmt(targets.shareOfFloor * 100)} % would leave / floor's`,
          value: `${budget === null ? '—' : fmt(budget, 2)} / ${ms(fc.concurrent.cpuMsPerCycle.bot)}`,
        },
      ];
      const json = {
        suite: 'slack',
        date: new Date().toISOString(),
        quick: ctx.quick,
        seconds: round((performance.now() - started) / 1000, 1),
        machine: machineInfo(pg.rows[0]!.v, loadBefore, loadAfter),
        config,
        results: {
          clicks,
          sequential: seq,
          concurrent: conc,
          statementsPerSequentialCycle: cycles.statements,
          /** The same cycles against Bolt + WebClient making the bot's Slack calls and nothing else. */
          floorCycles,
          shareOfFloor: share,
          /** botBudgetMs: what targets.shareOfFloor would leave the bot per cycle in flight (compare floorCycles.concurrent.cpuMsPerCycle.bot); null when PostgreSQL's CPU could not be read. */
          botCpuMsBudgetInFlight: budget,
          slackCalls: { total: totals.calls, byMethod: totals.byMethod },
        },
        targets,
      };
      const notes = [
        '',
        `Statements of a sequential cycle (per cycle × p50 round trip, ${seq.cycles * seq.rounds.length} cycles; most time first):`,
        ...cycles.statements.map((s) => `  ${fmt(s.perCycle, 2).padStart(4)} × ${fmt(s.p50Ms, 2).padStart(5)} ms  ${s.statement}`),
        `Slack Web API calls: ${Object.entries(totals.byMethod).map(([m, n]) => `${m} ${fmt(n)}`).join(', ')}`,
        `Load average (1 min): ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after, on ${cpus().length} cores.`,
      ];
      return { rows, json, notes };
    } finally {
      await h?.close();
      await bench.close();
    }
  },
};
