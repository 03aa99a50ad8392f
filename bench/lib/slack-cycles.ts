/** The slack suite's complete cycles (mention → card → Approve → answer), on the bot and on the cycle floor. */
import { performance } from 'node:perf_hooks';
import { procCpuDelta, readProcCpu } from './proc-cpu.js';
import { approveClickBody, type CpuMicros, type SignedClient } from './slack-harness.js';
import { APPROVER, mention, plan, waitForAnswer, waitForCard, type Env, type Planned } from './slack-bench-env.js';
import { round, roundSummary, summarize } from './stats.js';
import type { SuiteContext } from './suite.js';


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

export const theBot = (env: Env): CycleTarget => ({ client: env.h.client, runsTool: true });

export async function cycle(env: Env, target: CycleTarget, p: Planned): Promise<CycleTiming> {
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

/**
 * BENCH_BOT_CPU_PROF=<dir> writes a CPU profile of the bot process (which also serves the floor)
 * for each measured phase (`cycles-concurrent`, `floor-concurrent`, and each sequential round's
 * `cycles-sequential-<n>` and `floor-sequential-<n>`), covering only those cycles: no start-up,
 * no warm-up, no other measurement.
 */
const profileDir = process.env.BENCH_BOT_CPU_PROF;

async function profiled<T>(env: Env, name: string, work: () => Promise<T>): Promise<T> {
  if (!profileDir) return work();
  await env.h.startProfile();
  try {
    return await work();
  } finally {
    await env.h.stopProfile(profileDir, name);
  }
}

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
      /** The kernel's share of `bot` (system time: sockets, wake-ups). */
      botSystem: round((cpu1.bot.system - cpu0.bot.system) / 1000 / count, 3),
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

type CycleRun = Awaited<ReturnType<typeof runCycles>>;

/** Of `results`, the one with the median cycles/s, with every round's cycles/s and bot CPU per cycle beside it (the spread shows how steady the machine was). */
function medianRound(results: CycleRun[]) {
  const median = [...results].sort((a, b) => a.cyclesPerSec - b.cyclesPerSec)[Math.floor((results.length - 1) / 2)]!;
  return { ...median, rounds: results.map((r) => ({ cyclesPerSec: r.cyclesPerSec, botCpuMsPerCycle: r.cpuMsPerCycle.bot })) };
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

/**
 * The bot's cycles and the cycle floor's (see slack-bot-process.ts: the bot's Bolt and WebClient
 * making its Slack calls with no database, agent or model behind them, so its cycles/s bound what
 * the bot could reach on this machine), measured side by side: each measured phase of the bot is
 * followed at once by the same phase on the floor, and the sequential rounds alternate, so that
 * each share of the floor compares runs made seconds apart. The machine's speed drifts (on a
 * shared VM the floor alone measured 235 and 342 cycles/s twenty minutes apart), and a floor
 * measured after all of the bot's cycles compared the bot with another machine.
 *
 * The cycles in flight come first, after a long warm-up: V8 is still optimising a cycle's code
 * long after the click bursts (a function that runs once per cycle is compiled after hundreds of
 * cycles), and that compiling, on V8's own threads, counts in the process's CPU. The sequential
 * cycles after them find the code compiled, as in a bot that has been up for a while.
 */
export async function measureCyclesSideBySide(ctx: SuiteContext, env: Env) {
  const w = env.config.warmup;
  const { sequential: seq, concurrent: conc } = env.config;
  const bot = theBot(env);
  const floor: CycleTarget = { client: await env.h.startFloor('bolt-cycle'), runsTool: false };
  try {
    ctx.log(`cycles, bot and floor (Bolt + WebClient only) in turn: ${w.concurrentCycles} warm-up + ${conc.cycles} with ${conc.inFlight} in flight`);
    await runCycles(env, w.concurrentCycles, conc.inFlight, bot);
    await runCycles(env, w.concurrentCycles, conc.inFlight, floor);
    ctx.log('cycles: measuring in flight');
    const botConcurrent = await profiled(env, 'cycles-concurrent', () => runCycles(env, conc.cycles, conc.inFlight, bot));
    const floorConcurrent = await profiled(env, 'floor-concurrent', () => runCycles(env, conc.cycles, conc.inFlight, floor));
    ctx.log(`cycles: ${w.sequentialCycles} warm-up + ${seq.rounds} × ${seq.cycles} sequential, bot and floor in turn`);
    await runCycles(env, w.sequentialCycles, 1, bot);
    await runCycles(env, w.sequentialCycles, 1, floor);
    ctx.log('cycles: measuring sequential');
    await env.h.traceStatements();
    const botRounds: CycleRun[] = [];
    const floorRounds: CycleRun[] = [];
    for (let i = 0; i < seq.rounds; i++) {
      botRounds.push(await profiled(env, `cycles-sequential-${i + 1}`, () => runCycles(env, seq.cycles, 1, bot)));
      floorRounds.push(await profiled(env, `floor-sequential-${i + 1}`, () => runCycles(env, seq.cycles, 1, floor)));
    }
    const timings = await env.h.takeStatementTrace();
    const roundShares = botRounds.map((b, i) => round(b.cyclesPerSec / floorRounds[i]!.cyclesPerSec, 3));
    return {
      bot: { sequential: medianRound(botRounds), concurrent: botConcurrent, statements: statementTable(timings, seq.cycles * seq.rounds) },
      floor: { sequential: medianRound(floorRounds), concurrent: floorConcurrent },
      /** The bot's cycles/s over the floor's: in flight, of the two runs made one after the other; sequential, the median of the rounds' (each bot round over the floor round after it). */
      shareOfFloor: { sequential: summarize(roundShares).p50, concurrent: round(botConcurrent.cyclesPerSec / floorConcurrent.cyclesPerSec, 3), sequentialRounds: roundShares },
    };
  } finally {
    floor.client.close();
    await env.h.stopFloor();
  }
}
