/**
 * The Slack front end under load: the real Bolt HTTP endpoint, signed Events API and
 * interactivity requests, the fake Slack Web API on loopback, PostgreSQL, and the bench's
 * zero-latency scripted model. The bot, the fake and this process (Slack's delivery side and
 * the clock) each run in their own process; see bench/lib/slack-harness.ts and
 * docs/benchmarks.md ("The `slack` suite").
 */
import { cpus, loadavg } from 'node:os';
import { loadNow, machineInfo } from '../lib/machine.js';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { openBenchDatabase, poolSize } from '../lib/bench-db.js';
import { procCpuDelta, readProcCpu } from '../lib/proc-cpu.js';
import {
  approveClickBody,
  mentionFor,
  startSlackHarness,
  withTimeout,
  type CpuMicros,
  type Mention,
  type PostedCard,
  type LoopStats,
  type SignedClient,
  type SignedResponse,
  type SlackHarness,
  type ThreadWatch,
} from '../lib/slack-harness.js';
import { round, roundSummary, summarize, type Summary } from '../lib/stats.js';
import type { Suite, SuiteContext, TableRow } from '../lib/suite.js';

const fullConfig = {
  /** floorRounds: bursts a fresh floor process gets before it is measured (its code is cold: V8 compiles it meanwhile). */
  warmup: { sequentialCycles: 30, concurrentCycles: 100, clickRounds: 1, floorRounds: 20 },
  /** Each round: this many suspended runs (one mention each), then one Approve click on each card, all at once. */
  distinctCards: { rounds: 10, clicks: 50 },
  /** Each round: one suspended run, then this many approvers click its Approve button at once. */
  sameCard: { rounds: 10, clicks: 50 },
  sequential: { cycles: 300 },
  concurrent: { cycles: 2000, inFlight: 20 },
  poolSize,
};

/** `--quick`: every measurement once with small counts (numbers not comparable). */
const quickConfig: typeof fullConfig = {
  warmup: { sequentialCycles: 5, concurrentCycles: 20, clickRounds: 1, floorRounds: 2 },
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

/**
 * Counts the bot's `execute` calls per record id (reported by the bot process), so every card can
 * be checked to have run its tool exactly once.
 */
class Executions {
  private readonly byRecord = new Map<string, number>();
  private readonly waiters = new Map<string, () => void>();
  total = 0;

  readonly record = (recordId: string): void => {
    this.total += 1;
    this.byRecord.set(recordId, (this.byRecord.get(recordId) ?? 0) + 1);
    this.waiters.get(recordId)?.();
    this.waiters.delete(recordId);
  };

  /**
   * Throws unless the tool ran exactly once for this record; forgets it. (The report comes over
   * another channel than the answer, so it may still be on its way.) A later second run would
   * show up as a stray execution when the phase is checked.
   */
  async take(recordId: string): Promise<void> {
    if (!this.byRecord.has(recordId)) {
      await withTimeout(new Promise<void>((r) => this.waiters.set(recordId, r)), WAIT_MS, () => `execution of ${recordId}`);
    }
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
  h: SlackHarness;
  executions: Executions;
}

let recordCounter = 0;

interface Planned {
  recordId: string;
  mention: Mention;
}

/** Mentions asking to delete new records, each in a channel of its own, seeded on the fake ahead of time. */
async function plan(env: Env, n: number, prefix: string): Promise<Planned[]> {
  const planned = Array.from({ length: n }, () => {
    const recordId = `${prefix}${++recordCounter}`;
    return { recordId, mention: mentionFor(recordId, REQUESTER) };
  });
  // The messages exist on "Slack", so the bot's working reaction on them succeeds as it would.
  for (let i = 0; i < planned.length; i += 1000) await env.h.seed(planned.slice(i, i + 1000).map((p) => p.mention));
  return planned;
}

interface Started {
  recordId: string;
  watch: ThreadWatch;
  /** performance.now() as the mention was sent. */
  at: number;
  mention: SignedResponse;
}

/** Sends the signed app_mention (to the bot unless another client is given). */
async function mention(env: Env, p: Planned, client = env.h.client): Promise<Started> {
  const watch = env.h.traffic.watch(p.mention.channel, p.mention.ts);
  const request = client.prepare(p.mention.body);
  const response = await request.send();
  if (response.status !== 200) throw new Error(`app_mention for ${p.recordId} answered HTTP ${response.status}`);
  return { recordId: p.recordId, watch, at: response.at, mention: response };
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
  const planned = await plan(env, n, prefix);
  const started = await Promise.all(planned.map((p) => mention(env, p)));
  const cards = await Promise.all(started.map(waitForCard));
  await env.h.settle();
  return started.map((s, i) => ({ ...s, card: cards[i]! }));
}

/** One click of a burst, from Slack's side and from the bot's. */
interface ClickTiming {
  /** Request handed to the kernel → response read (the ack as Slack waits for it). */
  ackMs: number;
  /** The same from the request() call, with the driver's own connecting and writing. */
  totalMs: number;
  /** Sent → the bot's HTTP server takes it up: waiting in the socket while the bot's event loop does other work. */
  queuedMs: number;
  /** Taken up → ack handed to the kernel: Bolt (parse, verify, middleware) and the listener up to ack(). */
  handledMs: number;
}

/** Sends every body at once on fresh connections; resolves with each request's timings. */
async function burst(
  env: Env,
  client: SignedClient,
  bodies: string[],
  serverTimings: SlackHarness['takeServerTimings'] = env.h.takeServerTimings,
): Promise<{ responses: SignedResponse[]; clicks: ClickTiming[]; loop: LoopStats }> {
  client.freshConnections();
  const prepared = bodies.map((b) => client.prepare(b));
  await serverTimings();
  const responses = await Promise.all(prepared.map((p) => p.send()));
  const { requests, loop } = await serverTimings();
  const server = new Map(requests.map((t) => [t.id, t]));
  const clicks = responses.map((r) => {
    const t = server.get(r.id);
    if (!t) throw new Error(`the bot's server has no record of request ${r.id}`);
    return { ackMs: r.ms, totalMs: r.totalMs, queuedMs: t.arrived - r.sentEpoch, handledMs: t.acked - t.arrived };
  });
  return { responses, clicks, loop };
}

interface ClickRound {
  clicks: ClickTiming[];
  /** The bot's event loop from the first click until every ack was read (the work the clicks started included). */
  loop: LoopStats;
  /** Click sent → the answer posted in that card's thread. */
  clickToAnswerMs: number[];
  /** First click sent → last answer posted. */
  roundMs: number;
}

async function distinctCardsRound(env: Env, clicks: number): Promise<ClickRound & { cards: PostedCard[] }> {
  const runs = await prepareCards(env, clicks, 'd');
  const { responses, clicks: timings, loop } = await burst(
    env,
    env.h.client,
    runs.map((r) => approveClickBody(env.h.fakeOrigin, r.card, APPROVER)),
  );
  checkStatuses('distinct-card clicks', responses);
  const answers = await Promise.all(runs.map(waitForAnswer));
  await env.h.settle();
  for (const r of runs) {
    await env.executions.take(r.recordId);
    if (r.watch.cardUpdates !== 1) throw new Error(`card of ${r.recordId} was redrawn ${r.watch.cardUpdates} times, expected 1`);
    if (r.watch.other.length > 0 || r.watch.ephemerals > 0) throw new Error(`thread of ${r.recordId} got unexpected messages: ${r.watch.other.join(' | ')}`);
    env.h.traffic.forget(r.watch);
  }
  const first = Math.min(...responses.map((r) => r.at));
  return {
    clicks: timings,
    loop,
    clickToAnswerMs: answers.map((a, i) => a.at - responses[i]!.at),
    roundMs: Math.max(...answers.map((a) => a.at)) - first,
    cards: runs.map((r) => r.card),
  };
}

async function sameCardRound(env: Env, clicks: number): Promise<ClickRound> {
  const [run] = await prepareCards(env, 1, 's');
  const r = run!;
  const { responses, clicks: timings, loop } = await burst(
    env,
    env.h.client,
    APPROVERS.slice(0, clicks).map((user) => approveClickBody(env.h.fakeOrigin, r.card, user)),
  );
  checkStatuses('same-card clicks', responses);
  const answer = await waitForAnswer(r);
  await env.h.settle();
  // Exactly one click wins; everyone else is told, privately, that it was already approved.
  await env.executions.take(r.recordId);
  if (r.watch.ephemerals !== clicks - 1) throw new Error(`race on ${r.recordId}: ${r.watch.ephemerals} refusals for ${clicks - 1} losing clicks`);
  if (r.watch.cardUpdates !== 1) throw new Error(`race on ${r.recordId}: card redrawn ${r.watch.cardUpdates} times, expected 1`);
  if (r.watch.other.length > 0) throw new Error(`race on ${r.recordId}: unexpected messages: ${r.watch.other.join(' | ')}`);
  env.h.traffic.forget(r.watch);
  const first = Math.min(...responses.map((x) => x.at));
  return { clicks: timings, loop, clickToAnswerMs: [answer.at - first], roundMs: answer.at - first };
}

/**
 * The same bursts against a floor server alone in a fresh process, with that process's CPU per
 * request: 50 requests that arrive at once on one event loop are answered
 * one after the other, so the last ack waits for about 50 times this, whatever else happens.
 */
async function floorRounds(env: Env, kind: 'http' | 'bolt', rounds: number, bodies: string[]): Promise<{ clicks: ClickTiming[]; cpuUsPerRequest: number }> {
  const floor = await env.h.startFloorProcess(kind);
  try {
    const out: ClickTiming[] = [];
    let cpu0 = await floor.cpu();
    const warm = config.warmup.floorRounds;
    for (let i = 0; i < warm + rounds; i++) {
      const { responses, clicks } = await burst(env, floor.client, bodies, floor.takeServerTimings);
      checkStatuses(`${kind} floor`, responses);
      if (i >= warm) out.push(...clicks);
      else if (i === warm - 1) cpu0 = await floor.cpu();
    }
    const cpu1 = await floor.cpu();
    return { clicks: out, cpuUsPerRequest: round((cpu1.user - cpu0.user + cpu1.system - cpu0.system) / out.length, 0) };
  } finally {
    await floor.stop();
  }
}

const roundLoop = (l: LoopStats) => ({ maxDelayMs: round(l.maxDelayMs, 1), gcMs: round(l.gcMs, 1), gcMaxMs: round(l.gcMaxMs, 1) });

function clickSummary(clicks: ClickTiming[]) {
  const of = (key: keyof ClickTiming) => roundSummary(summarize(clicks.map((c) => c[key])));
  return { ackMs: of('ackMs'), totalMs: of('totalMs'), queuedMs: of('queuedMs'), handledMs: of('handledMs') };
}

async function measureClicks(ctx: SuiteContext, env: Env) {
  const d = config.distinctCards;
  const s = config.sameCard;
  const warm = config.warmup.clickRounds;
  ctx.log(`click-to-ack: ${warm} + ${d.rounds} rounds × ${d.clicks} clicks on distinct cards, ${warm} + ${s.rounds} rounds × ${s.clicks} clicks on one card`);
  let cards: PostedCard[] = [];
  for (let i = 0; i < warm; i++) {
    cards = (await distinctCardsRound(env, d.clicks)).cards;
    await sameCardRound(env, s.clicks);
  }
  const distinct: ClickRound[] = [];
  const same: ClickRound[] = [];
  // Interleaved, so load that comes and goes on the machine hits both cases alike.
  for (let i = 0; i < Math.max(d.rounds, s.rounds); i++) {
    if (i < d.rounds) distinct.push(await distinctCardsRound(env, d.clicks));
    if (i < s.rounds) same.push(await sameCardRound(env, s.clicks));
  }
  ctx.log(
    `click-to-ack floors, each in a fresh process: ${config.warmup.floorRounds} + ${d.rounds} rounds × ${d.clicks} clicks on a bare node:http server, then on an ack-only Bolt app`,
  );
  // Real click bodies (already decided cards: the floors do not look at them).
  const floorBodies = cards.map((c) => approveClickBody(env.h.fakeOrigin, c, APPROVER));
  const http = await floorRounds(env, 'http', d.rounds, floorBodies);
  const bolt = await floorRounds(env, 'bolt', d.rounds, floorBodies);
  const flat = (rounds: ClickRound[]) => rounds.flatMap((r) => r.clicks);
  return {
    distinctCards: {
      rounds: d.rounds,
      clicksPerRound: d.clicks,
      ...clickSummary(flat(distinct)),
      /** p99 of each round on its own: shows whether one bad round makes the overall figure. */
      ackP99MsPerRound: distinct.map((r) => round(summarize(r.clicks.map((c) => c.ackMs)).p99, 2)),
      /** Per round: the bot's longest event-loop stall and its GC pauses during the burst. */
      loopPerRound: distinct.map((r) => roundLoop(r.loop)),
      clickToAnswerMs: roundSummary(summarize(distinct.flatMap((r) => r.clickToAnswerMs))),
      roundMs: roundSummary(summarize(distinct.map((r) => r.roundMs))),
    },
    sameCard: {
      rounds: s.rounds,
      clicksPerRound: s.clicks,
      ...clickSummary(flat(same)),
      ackP99MsPerRound: same.map((r) => round(summarize(r.clicks.map((c) => c.ackMs)).p99, 2)),
      loopPerRound: same.map((r) => roundLoop(r.loop)),
      firstClickToAnswerMs: roundSummary(summarize(same.flatMap((r) => r.clickToAnswerMs))),
    },
    floors: {
      bareHttp: { ...clickSummary(http.clicks), cpuUsPerRequest: http.cpuUsPerRequest },
      boltAckOnly: { ...clickSummary(bolt.clicks), cpuUsPerRequest: bolt.cpuUsPerRequest },
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

/** Who the cycles are sent to: the real bot, or the cycle floor, which answers the same way but runs no tool. */
interface CycleTarget {
  client: SignedClient;
  runsTool: boolean;
}

const theBot = (env: Env): CycleTarget => ({ client: env.h.client, runsTool: true });

async function cycle(env: Env, target: CycleTarget, p: Planned): Promise<CycleTiming> {
  const s = await mention(env, p, target.client);
  const card = await waitForCard(s);
  const click = await target.client.prepare(approveClickBody(env.h.fakeOrigin, card, APPROVER)).send();
  if (click.status !== 200) throw new Error(`Approve click for ${s.recordId} answered HTTP ${click.status}`);
  const answer = await waitForAnswer(s);
  if (target.runsTool) await env.executions.take(s.recordId);
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

const cpuMs = (a: CpuMicros, b: CpuMicros) => (b.user - a.user + b.system - a.system) / 1000;

async function runCycles(env: Env, count: number, inFlight: number, target = theBot(env)) {
  const planned = await plan(env, count, 'c');
  await env.h.settle();
  const timings: CycleTiming[] = [];
  let next = 0;
  const executedBefore = env.executions.total;
  const statementsBefore = (await env.h.botStats()).statements;
  const slackCallsBefore = env.h.traffic.totals.calls;
  const cpu0 = await env.h.cpu();
  const proc0 = readProcCpu();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      while (next < count) timings.push(await cycle(env, target, planned[next++]!));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  // What is still running after the last answer (reactions removed, …) belongs to these cycles too.
  await env.h.settle();
  const cpu1 = await env.h.cpu();
  const proc = procCpuDelta(proc0, readProcCpu());
  const statements = (await env.h.botStats()).statements - statementsBefore;
  const slackCalls = env.h.traffic.totals.calls - slackCallsBefore;
  const executed = env.executions.total - executedBefore;
  const expected = target.runsTool ? count : 0;
  if (executed !== expected || timings.length !== count) {
    throw new Error(`${count} cycles ran the tool ${executed} times, expected ${expected} (${timings.length} cycles finished)`);
  }
  if (env.executions.stray !== 0) throw new Error(`${env.executions.stray} tool executions belong to no cycle`);
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
    /** CPU per cycle of each process (ms), from just before the first mention until the bot was idle again. */
    cpuMsPerCycle: {
      bot: round(cpuMs(cpu0.bot, cpu1.bot) / count, 3),
      fakeSlack: round(cpuMs(cpu0.fake, cpu1.fake) / count, 3),
      driver: round(cpuMs(cpu0.driver, cpu1.driver) / count, 3),
      /** Every postgres process on the machine (other users' work included). */
      postgres: proc ? round(proc.postgresMs / count, 2) : null,
    },
    /** Share of the machine's cores busy (and stolen by the hypervisor) over the phase; other users' work included. */
    machineBusy: proc ? round(proc.machineBusy, 3) : null,
    machineSteal: proc ? round(proc.machineSteal, 3) : null,
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
function statementTable(timings: Array<[string, number[]]>, cycles: number) {
  return timings
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
  await env.h.traceStatements();
  const sequential = await runCycles(env, seq.cycles, 1);
  const timings = await env.h.takeStatementTrace();
  ctx.log(`cycles: ${w.concurrentCycles} warm-up + ${conc.cycles} with ${conc.inFlight} in flight`);
  await runCycles(env, w.concurrentCycles, conc.inFlight);
  const concurrent = await runCycles(env, conc.cycles, conc.inFlight);
  return { sequential, concurrent, statements: statementTable(timings, seq.cycles) };
}

/**
 * The same cycles against the cycle floor (see slack-bot-process.ts): the bot's Bolt and
 * WebClient making its Slack calls with no database, agent or model behind them, so its
 * cycles/s bound what the bot could reach on this machine.
 */
async function measureFloorCycles(ctx: SuiteContext, env: Env) {
  const w = config.warmup;
  const { sequential: seq, concurrent: conc } = config;
  ctx.log(`cycle floor (Bolt + WebClient only): ${w.sequentialCycles} warm-up + ${seq.cycles} sequential, ${w.concurrentCycles} warm-up + ${conc.cycles} with ${conc.inFlight} in flight`);
  const target: CycleTarget = { client: await env.h.startFloor('bolt-cycle'), runsTool: false };
  try {
    await runCycles(env, w.sequentialCycles, 1, target);
    const sequential = await runCycles(env, seq.cycles, 1, target);
    await runCycles(env, w.concurrentCycles, conc.inFlight, target);
    const concurrent = await runCycles(env, conc.cycles, conc.inFlight, target);
    return { sequential, concurrent };
  } finally {
    target.client.close();
    await env.h.stopFloor();
  }
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
    const loadBefore = loadNow(ctx.log);
    const bench = await openBenchDatabase(ctx.databaseUrl);
    let h: SlackHarness | undefined;
    try {
      const pg = await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(bench.admin.db);
      // The bot works in this schema through its own pool; ours stays idle.
      h = await startSlackHarness({ databaseUrl: ctx.databaseUrl, schema: bench.schema, approvers: APPROVERS });
      const executions = new Executions();
      h.onExecuted(executions.record);
      const env: Env = { h, executions };

      const clicks = await measureClicks(ctx, env);
      const cycles = await measureCycles(ctx, env);
      const floorCycles = await measureFloorCycles(ctx, env);

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
      const pgCpu = (c: typeof conc) => (c.cpuMsPerCycle.postgres === null ? '—' : fmt(c.cpuMsPerCycle.postgres, 1));
      const busy = (c: typeof conc) => (c.machineBusy === null ? '' : `, machine ${fmt(c.machineBusy * 100)} % busy`);
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
        { metric: '  … in the bot: queued / Bolt until ack, p50', value: `${fmt(dc.queuedMs.p50, 2)} / ${ms(dc.handledMs.p50)}` },
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
        { metric: '  mention ack / click ack p50', value: `${fmt(seq.mentionAckMs.p50, 2)} / ${ms(seq.clickAckMs.p50)}`, reference: `${fmt(slackAckDeadlineMs)} ms` },
        { metric: `Full cycle p50 / p99 (${conc.inFlight} in flight)`, value: pair(conc.cycleMs) },
        {
          metric: `  mention ack / click ack p99 (${conc.inFlight} in flight)`,
          value: `${fmt(conc.mentionAckMs.p99, 2)} / ${ms(conc.clickAckMs.p99)}`,
          reference: `${fmt(slackAckDeadlineMs)} ms`,
        },
        { metric: 'Bot process CPU per cycle (sequential / in flight)', value: `${fmt(seq.cpuMsPerCycle.bot, 2)} / ${ms(conc.cpuMsPerCycle.bot)}` },
        {
          metric: `  fake Slack / driver / postgres, in flight`,
          value: `${fmt(conc.cpuMsPerCycle.fakeSlack, 2)} / ${fmt(conc.cpuMsPerCycle.driver, 2)} / ${pgCpu(conc)} ms${busy(conc)}`,
        },
        { metric: 'SQL statements per cycle', value: fmt(seq.sqlStatementsPerCycle, 1) },
        { metric: 'Slack Web API calls per cycle', value: fmt(seq.slackCallsPerCycle, 1) },
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
          slackCalls: { total: totals.calls, byMethod: totals.byMethod },
        },
        targets,
      };
      const notes = [
        '',
        `Statements of a sequential cycle (per cycle × p50 round trip, ${seq.cycles} cycles; most time first):`,
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
