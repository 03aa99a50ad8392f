/**
 * The Slack front end under load: the real Bolt HTTP endpoint, signed Events API and
 * interactivity requests, the fake Slack Web API on loopback, PostgreSQL, and the bench's
 * zero-latency scripted model. See docs/benchmarks.md ("The `slack` suite").
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { openBenchDatabase, poolSize, type BenchDatabase } from '../lib/bench-db.js';
import { benchAgent, toolName, type Execution } from '../lib/fixture.js';
import {
  approveClickBody,
  mentionFor,
  SLACK_IDS,
  startSlackHarness,
  withTimeout,
  type PostedCard,
  type SignedResponse,
  type SlackHarness,
  type ThreadWatch,
} from '../lib/slack-harness.js';
import { round, roundSummary, summarize, type Summary } from '../lib/stats.js';
import type { Suite, SuiteContext, TableRow } from '../lib/suite.js';

const fullConfig = {
  warmup: { sequentialCycles: 30, concurrentCycles: 100, clickRounds: 1 },
  /** Each round: this many suspended runs (one mention each), then one Approve click on each card, all at once. */
  distinctCards: { rounds: 10, clicks: 50 },
  /** Each round: one suspended run, then this many approvers click its Approve button at once. */
  sameCard: { rounds: 10, clicks: 50 },
  sequential: { cycles: 500 },
  concurrent: { cycles: 3000, inFlight: 20 },
  poolSize,
};

/** `--quick`: every measurement once with small counts (numbers not comparable). */
const quickConfig: typeof fullConfig = {
  warmup: { sequentialCycles: 5, concurrentCycles: 20, clickRounds: 1 },
  distinctCards: { rounds: 2, clicks: 50 },
  sameCard: { rounds: 2, clicks: 50 },
  sequential: { cycles: 50 },
  concurrent: { cycles: 200, inFlight: 20 },
  poolSize,
};

let config = fullConfig;

export const targets = {
  clickToAckP99Ms: 25,
  concurrentCyclesPerSec: 150,
};

/** Slack's own limit, for scale: a request not acknowledged within 3 s counts as failed (and events are retried). */
const slackAckDeadlineMs = 3000;

const REQUESTER = 'U0BREQUESTR';
const APPROVER = 'U0BAPPROVER';
/** Everyone who may approve: the race case has this many people click one card at once. */
const APPROVERS = [APPROVER, ...Array.from({ length: 63 }, (_, i) => `U0BAPPR${String(i + 1).padStart(4, '0')}`)];

/** How long any one wait may take before the bench gives up (a lost message, not a slow one). */
const WAIT_MS = 20_000;

/** Counts `execute` per record id, so every card can be checked to have run its tool exactly once. */
class Executions {
  private readonly byRecord = new Map<string, number>();
  total = 0;

  readonly record = (e: Execution): void => {
    this.total += 1;
    this.byRecord.set(e.recordId, (this.byRecord.get(e.recordId) ?? 0) + 1);
  };

  /** Throws unless the tool ran exactly once for this record; forgets it. */
  take(recordId: string): void {
    const n = this.byRecord.get(recordId) ?? 0;
    if (n !== 1) throw new Error(`record ${recordId}: tool executed ${n} times, expected 1`);
    this.byRecord.delete(recordId);
  }

  /** Executions no check has claimed (should be none once a phase is over). */
  get stray(): number {
    return this.byRecord.size;
  }
}

interface Env {
  bench: BenchDatabase;
  h: SlackHarness;
  executions: Executions;
}

let recordCounter = 0;

interface Started {
  recordId: string;
  watch: ThreadWatch;
  /** performance.now() as the mention was sent. */
  at: number;
  mention: SignedResponse;
}

/** Sends a signed app_mention asking to delete a new record, in a channel of its own. */
async function mention(env: Env, prefix: string): Promise<Started> {
  const recordId = `${prefix}${++recordCounter}`;
  const m = mentionFor(recordId, REQUESTER);
  const watch = env.h.traffic.watch(m.channel, m.ts);
  // The message exists on "Slack", so the bot's working reaction on it succeeds as it would.
  env.h.fake.seedMessage({ channel: m.channel, text: m.text, user: REQUESTER, ts: m.ts });
  const at = performance.now();
  const response = await env.h.client.event(m.envelope);
  if (response.status !== 200) throw new Error(`app_mention for ${recordId} answered HTTP ${response.status}`);
  return { recordId, watch, at, mention: response };
}

function waitForCard(s: Started): Promise<PostedCard> {
  return withTimeout(s.watch.card.promise, WAIT_MS, () => `approval card for ${s.recordId} (thread ${s.watch.channel}/${s.watch.threadTs}; other: ${s.watch.other.join(' | ')})`);
}

async function waitForAnswer(s: Started) {
  const answer = await withTimeout(s.watch.answer.promise, WAIT_MS, () => `answer for ${s.recordId} (other: ${s.watch.other.join(' | ')})`);
  if (answer.text !== `Deleted ${s.recordId}.`) throw new Error(`record ${s.recordId}: unexpected answer "${answer.text}"`);
  return answer;
}

function checkStatuses(what: string, responses: SignedResponse[]): void {
  const bad = responses.filter((r) => r.status !== 200);
  if (bad.length > 0) throw new Error(`${what}: ${bad.length} of ${responses.length} requests answered ${bad.map((r) => r.status).join(', ')}`);
}

// ---------------------------------------------------------------------------------------------
// 1. Click-to-ack under 50 concurrent clicks
// ---------------------------------------------------------------------------------------------

/** `n` suspended runs, each with its approval card posted, and the bot idle again. */
async function prepareCards(env: Env, n: number, prefix: string): Promise<Array<Started & { card: PostedCard }>> {
  const started = await Promise.all(Array.from({ length: n }, () => mention(env, prefix)));
  const cards = await Promise.all(started.map(waitForCard));
  await env.h.slack.idle();
  return started.map((s, i) => ({ ...s, card: cards[i]! }));
}

/** Sends every body at once on fresh connections; resolves with each request's response time. */
async function burst(env: Env, bodies: string[]): Promise<SignedResponse[]> {
  env.h.client.freshConnections();
  const prepared = bodies.map((b) => env.h.client.prepare(b));
  return Promise.all(prepared.map((p) => p.send()));
}

interface ClickRound {
  ackMs: number[];
  /** Click sent → the answer posted in that card's thread. */
  clickToAnswerMs: number[];
  /** First click sent → last answer posted. */
  roundMs: number;
}

async function distinctCardsRound(env: Env, clicks: number): Promise<ClickRound> {
  const runs = await prepareCards(env, clicks, 'd');
  const responses = await burst(env, runs.map((r) => approveClickBody(env.h.fake, r.card, APPROVER)));
  checkStatuses('distinct-card clicks', responses);
  const answers = await Promise.all(runs.map(waitForAnswer));
  await env.h.slack.idle();
  for (const r of runs) {
    env.executions.take(r.recordId);
    if (r.watch.cardUpdates !== 1) throw new Error(`card of ${r.recordId} was redrawn ${r.watch.cardUpdates} times, expected 1`);
    if (r.watch.other.length > 0 || r.watch.ephemerals > 0) throw new Error(`thread of ${r.recordId} got unexpected messages: ${r.watch.other.join(' | ')}`);
    env.h.traffic.forget(r.watch);
  }
  const first = Math.min(...responses.map((r) => r.at));
  return {
    ackMs: responses.map((r) => r.ms),
    clickToAnswerMs: answers.map((a, i) => a.at - responses[i]!.at),
    roundMs: Math.max(...answers.map((a) => a.at)) - first,
  };
}

async function sameCardRound(env: Env, clicks: number): Promise<ClickRound> {
  const [run] = await prepareCards(env, 1, 's');
  const r = run!;
  const responses = await burst(env, APPROVERS.slice(0, clicks).map((user) => approveClickBody(env.h.fake, r.card, user)));
  checkStatuses('same-card clicks', responses);
  const answer = await waitForAnswer(r);
  await env.h.slack.idle();
  // Exactly one click wins; everyone else is told, privately, that it was already approved.
  env.executions.take(r.recordId);
  if (r.watch.ephemerals !== clicks - 1) throw new Error(`race on ${r.recordId}: ${r.watch.ephemerals} refusals for ${clicks - 1} losing clicks`);
  if (r.watch.cardUpdates !== 1) throw new Error(`race on ${r.recordId}: card redrawn ${r.watch.cardUpdates} times, expected 1`);
  if (r.watch.other.length > 0) throw new Error(`race on ${r.recordId}: unexpected messages: ${r.watch.other.join(' | ')}`);
  env.h.traffic.forget(r.watch);
  const first = Math.min(...responses.map((x) => x.at));
  return { ackMs: responses.map((x) => x.ms), clickToAnswerMs: [answer.at - first], roundMs: answer.at - first };
}

async function measureClicks(ctx: SuiteContext, env: Env) {
  const d = config.distinctCards;
  const s = config.sameCard;
  const warm = config.warmup.clickRounds;
  ctx.log(`click-to-ack: ${warm} + ${d.rounds} rounds × ${d.clicks} clicks on distinct cards, ${warm} + ${s.rounds} rounds × ${s.clicks} clicks on one card`);
  const distinct: ClickRound[] = [];
  const same: ClickRound[] = [];
  // Interleaved, so load that comes and goes on the machine hits both cases alike.
  for (let i = 0; i < warm + Math.max(d.rounds, s.rounds); i++) {
    if (i < warm + d.rounds) {
      const r = await distinctCardsRound(env, d.clicks);
      if (i >= warm) distinct.push(r);
    }
    if (i < warm + s.rounds) {
      const r = await sameCardRound(env, s.clicks);
      if (i >= warm) same.push(r);
    }
  }
  const flat = (rounds: ClickRound[], key: 'ackMs' | 'clickToAnswerMs') => rounds.flatMap((r) => r[key]);
  return {
    distinctCards: {
      rounds: d.rounds,
      clicksPerRound: d.clicks,
      ackMs: roundSummary(summarize(flat(distinct, 'ackMs'))),
      /** p99 of each round on its own: shows whether one bad round makes the overall figure. */
      ackP99MsPerRound: distinct.map((r) => round(summarize(r.ackMs).p99, 2)),
      clickToAnswerMs: roundSummary(summarize(flat(distinct, 'clickToAnswerMs'))),
      roundMs: roundSummary(summarize(distinct.map((r) => r.roundMs))),
    },
    sameCard: {
      rounds: s.rounds,
      clicksPerRound: s.clicks,
      ackMs: roundSummary(summarize(flat(same, 'ackMs'))),
      ackP99MsPerRound: same.map((r) => round(summarize(r.ackMs).p99, 2)),
      firstClickToAnswerMs: roundSummary(summarize(flat(same, 'clickToAnswerMs'))),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Complete mention → card → Approve → answer cycles
// ---------------------------------------------------------------------------------------------

interface CycleTiming {
  mentionAckMs: number;
  mentionToCardMs: number;
  clickAckMs: number;
  clickToAnswerMs: number;
  cycleMs: number;
  endedAt: number;
}

async function cycle(env: Env): Promise<CycleTiming> {
  const s = await mention(env, 'c');
  const card = await waitForCard(s);
  const click = await env.h.client.prepare(approveClickBody(env.h.fake, card, APPROVER)).send();
  if (click.status !== 200) throw new Error(`Approve click for ${s.recordId} answered HTTP ${click.status}`);
  const answer = await waitForAnswer(s);
  env.executions.take(s.recordId);
  env.h.traffic.forget(s.watch);
  return {
    mentionAckMs: s.mention.ms,
    mentionToCardMs: card.at - s.at,
    clickAckMs: click.ms,
    clickToAnswerMs: answer.at - click.at,
    cycleMs: answer.at - s.at,
    endedAt: answer.at,
  };
}

async function runCycles(env: Env, count: number, inFlight: number) {
  const timings: CycleTiming[] = [];
  let started = 0;
  const executedBefore = env.executions.total;
  const statementsBefore = env.bench.counter.count;
  const slackCallsBefore = env.h.traffic.totals.calls;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      while (started < count) {
        started += 1;
        timings.push(await cycle(env));
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // What is still running after the last answer (reactions removed, …) belongs to these cycles too.
  await env.h.slack.idle();
  const statements = env.bench.counter.count - statementsBefore;
  const slackCalls = env.h.traffic.totals.calls - slackCallsBefore;
  const executed = env.executions.total - executedBefore;
  if (executed !== count || timings.length !== count) {
    throw new Error(`${count} cycles ran the tool ${executed} times (${timings.length} cycles finished)`);
  }
  const quarters: number[] = [];
  let from = t0;
  timings.sort((a, b) => a.endedAt - b.endedAt);
  for (let q = 1; q <= 4; q++) {
    const end = timings[Math.ceil((q * count) / 4) - 1]!.endedAt;
    quarters.push(round(count / 4 / ((end - from) / 1000), 1));
    from = end;
  }
  const sum = (key: keyof CycleTiming) => roundSummary(summarize(timings.map((t) => t[key])));
  return {
    cycles: count,
    inFlight,
    seconds: round(seconds, 3),
    cyclesPerSec: round(count / seconds, 1),
    quarterCyclesPerSec: quarters,
    nodeCpuMsPerCycle: round((cpu.user + cpu.system) / 1000 / count, 3),
    sqlStatementsPerCycle: round(statements / count, 2),
    slackCallsPerCycle: round(slackCalls / count, 2),
    mentionAckMs: sum('mentionAckMs'),
    mentionToCardMs: sum('mentionToCardMs'),
    clickAckMs: sum('clickAckMs'),
    clickToAnswerMs: sum('clickToAnswerMs'),
    cycleMs: sum('cycleMs'),
  };
}

/** Each distinct statement of a cycle: how often per cycle, and its round trip. */
function statementTable(timings: Map<string, number[]>, cycles: number) {
  return [...timings]
    .map(([text, ms]) => {
      const s = summarize(ms);
      return {
        statement: text.length > 120 ? `${text.slice(0, 117)}…` : text,
        perCycle: round(ms.length / cycles, 2),
        p50Ms: round(s.p50, 3),
        p99Ms: round(s.p99, 3),
        msPerCycle: round((s.mean * ms.length) / cycles, 3),
      };
    })
    .sort((a, b) => b.msPerCycle - a.msPerCycle);
}

async function measureCycles(ctx: SuiteContext, env: Env) {
  const w = config.warmup;
  const { sequential: seq, concurrent: conc } = config;
  ctx.log(`cycles: ${w.sequentialCycles} warm-up + ${seq.cycles} sequential`);
  await runCycles(env, w.sequentialCycles, 1);
  const timings = new Map<string, number[]>();
  env.bench.counter.timings = timings;
  const sequential = await runCycles(env, seq.cycles, 1);
  env.bench.counter.timings = undefined;
  ctx.log(`cycles: ${w.concurrentCycles} warm-up + ${conc.cycles} with ${conc.inFlight} in flight`);
  await runCycles(env, w.concurrentCycles, conc.inFlight);
  const concurrent = await runCycles(env, conc.cycles, conc.inFlight);
  return { sequential, concurrent, statements: statementTable(timings, seq.cycles) };
}

// ---------------------------------------------------------------------------------------------

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (n: number) => `${fmt(n, 2)} ms`;
const pair = (s: Pick<Summary, 'p50' | 'p99'>) => `${fmt(s.p50, 2)} / ${fmt(s.p99, 2)} ms`;

export const slackSuite: Suite = {
  name: 'slack',
  description: 'The Slack front end (Bolt over HTTP, signed requests, fake Web API) against PostgreSQL with a zero-latency model',
  referenceLabel: 'Slack limit',
  async run(ctx) {
    config = ctx.quick ? quickConfig : fullConfig;
    const started = performance.now();
    const loadBefore = loadavg();
    if (loadBefore[0]! > cpus().length) {
      ctx.log(`warning: load average ${loadBefore[0]!.toFixed(1)} on ${cpus().length} cores; the timings will be noisy`);
    }
    const bench = await openBenchDatabase(ctx.databaseUrl);
    let h: SlackHarness | undefined;
    try {
      const pg = await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(bench.admin.db);
      const executions = new Executions();
      const policy = definePolicy({ tools: { [toolName]: { requireApproval: true, approvers: APPROVERS } } });
      const agent = benchAgent(bench.db, executions.record, { policy, botUserId: SLACK_IDS.botUserId });
      h = await startSlackHarness({ agent, db: bench.db });
      const env: Env = { bench, h, executions };

      const clicks = await measureClicks(ctx, env);
      const cycles = await measureCycles(ctx, env);

      await h.slack.idle();
      h.traffic.check();
      if (executions.stray !== 0) throw new Error(`${executions.stray} tool executions belong to no card`);
      const totals = h.traffic.totals;
      if (totals.failed.length > 0) throw new Error(`the fake Slack refused ${totals.failed.length} calls: ${totals.failed.slice(0, 5).join('; ')}`);
      if (totals.unwatched > 0) throw new Error(`${totals.unwatched} thread messages arrived after their cycle was over`);
      const loadAfter = loadavg();

      const dc = clicks.distinctCards;
      const sc = clicks.sameCard;
      const seq = cycles.sequential;
      const conc = cycles.concurrent;
      const rows: TableRow[] = [
        {
          metric: `Click → ack p50, ${dc.clicksPerRound} clicks at once on distinct cards (n=${dc.ackMs.n})`,
          value: ms(dc.ackMs.p50),
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        {
          metric: '  … p99',
          value: ms(dc.ackMs.p99),
          target: `≤ ${targets.clickToAckP99Ms} ms`,
          ok: dc.ackMs.p99 <= targets.clickToAckP99Ms,
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        {
          metric: `Click → ack p50, ${sc.clicksPerRound} clicks at once on one card (n=${sc.ackMs.n})`,
          value: ms(sc.ackMs.p50),
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        {
          metric: '  … p99',
          value: ms(sc.ackMs.p99),
          target: `≤ ${targets.clickToAckP99Ms} ms`,
          ok: sc.ackMs.p99 <= targets.clickToAckP99Ms,
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        { metric: `Click → answer in thread p50 / p99 (${dc.clicksPerRound} at once)`, value: pair(dc.clickToAnswerMs) },
        { metric: `Cycles/s, sequential (${seq.cycles})`, value: fmt(seq.cyclesPerSec) },
        {
          metric: `Cycles/s, ${conc.inFlight} in flight (${conc.cycles})`,
          value: fmt(conc.cyclesPerSec),
          target: `≥ ${targets.concurrentCyclesPerSec}`,
          ok: conc.cyclesPerSec >= targets.concurrentCyclesPerSec,
        },
        { metric: 'Full cycle p50 / p99 (sequential)', value: pair(seq.cycleMs) },
        { metric: '  mention → card p50 / p99', value: pair(seq.mentionToCardMs) },
        { metric: '  click → answer p50 / p99', value: pair(seq.clickToAnswerMs) },
        { metric: '  mention ack / click ack p50 (sequential)', value: `${fmt(seq.mentionAckMs.p50, 2)} / ${ms(seq.clickAckMs.p50)}`, reference: `${fmt(slackAckDeadlineMs)} ms` },
        {
          metric: `  mention ack / click ack p99 (${conc.inFlight} in flight)`,
          value: `${fmt(conc.mentionAckMs.p99, 2)} / ${ms(conc.clickAckMs.p99)}`,
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        { metric: `Full cycle p50 / p99 (${conc.inFlight} in flight)`, value: pair(conc.cycleMs) },
        { metric: 'Node CPU per cycle (sequential / in flight)', value: `${fmt(seq.nodeCpuMsPerCycle, 2)} / ${ms(conc.nodeCpuMsPerCycle)}` },
        { metric: 'SQL statements per cycle', value: fmt(seq.sqlStatementsPerCycle, 1) },
        { metric: 'Slack Web API calls per cycle', value: fmt(seq.slackCallsPerCycle, 1) },
      ];
      const json = {
        suite: 'slack',
        date: new Date().toISOString(),
        quick: ctx.quick,
        seconds: round((performance.now() - started) / 1000, 1),
        machine: {
          cpus: cpus().length,
          cpuModel: cpus()[0]?.model ?? 'unknown',
          node: process.version,
          postgres: pg.rows[0]!.v,
          loadAverage1m: { before: round(loadBefore[0]!, 2), after: round(loadAfter[0]!, 2) },
        },
        config,
        results: {
          clicks,
          sequential: seq,
          concurrent: conc,
          statementsPerSequentialCycle: cycles.statements,
          slackCalls: { total: totals.calls, byMethod: totals.byMethod },
        },
        targets,
      };
      const notes = [
        '',
        `Statements of a sequential cycle (per cycle × p50 round trip, ${seq.cycles} cycles; most time first):`,
        ...cycles.statements.map((s) => `  ${fmt(s.perCycle, 2).padStart(4)} × ${fmt(s.p50Ms, 2).padStart(5)} ms  ${s.statement}`),
        `Slack Web API calls: ${Object.entries(totals.byMethod).map(([m, n]) => `${m} ${fmt(n)}`).join(', ')}`,
        `Load average (1 min): ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after, on ${cpus().length} cores.`,
      ];
      return { rows, json, notes };
    } finally {
      await h?.close();
      await bench.close();
    }
  },
};
