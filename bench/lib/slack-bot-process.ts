/**
 * The bot under test, in a process of its own: the bench agent (scripted model, one tool that
 * needs approval) behind createSlackApp (Bolt over HTTP on an ephemeral port), working in the
 * parent's bench schema through a counting pool. Started by the slack suite:
 *   node --import tsx bench/lib/slack-bot-process.ts   (with an IPC channel; see child-rpc.ts)
 * Every tool execution is reported to the parent as an `executed` event.
 *
 * It can also serve floors on other ports, for comparison: a bare node:http server that
 * answers 200 once it has read the body, a Bolt app (same receiver settings) whose Approve
 * listener only acks, and a Bolt app that makes a cycle's Slack calls and nothing else. The
 * click-to-ack floors run in another copy of this script with no bot started (startFloorOnly),
 * so the bot's heap and timers are in neither their timings nor their CPU.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { App, HTTPReceiver, LogLevel, webApi, type BlockAction, type ButtonAction } from '@slack/bolt';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { ACTION_IDS, parseCardBlockId } from '../../src/slack/kit/action-ids.js';
import { approvalCard } from '../../src/slack/card/approval-card.js';
import type { ApprovalCardState } from '../../src/slack/card/card-types.js';
import { BackgroundTasks } from '../../src/slack/transport/background-tasks.js';
import { inboundRequests } from '../../src/slack/transport/inbound-requests.js';
import { nodeHttpFetch } from '../../src/slack/transport/node-http-fetch.js';
import { createSlackApp, type SlackApp } from '../../src/slack/app.js';
import { answerMessages } from '../../src/slack/thread/answer-stream.js';
import { DEFAULT_WORKING_REACTION_DELAY_MS, workingReaction } from '../../src/slack/thread/assistant-status.js';
import { openCountingPool, type CountingPool } from './bench-db.js';
import type { RunSlots } from '../../src/agent/run-slots.js';
import { serveRpc } from './child-rpc.js';
import { benchAgent, toolName } from './fixture.js';

export interface BotStartArgs {
  databaseUrl: string;
  schema: string;
  botToken: string;
  signingSecret: string;
  apiUrl: string;
  botUserId: string;
  approvers: string[];
  /**
   * The backlog suite's bot, as in production: the sweep on a timer, the Web API's own retries
   * (Slack's 429s are part of what is measured), and a run limit.
   */
  backlog?: { maxConcurrentRuns: number; sweepIntervalMs: number };
}

/** How busy the bot's run slots were since the last reading (sampled every 10 ms). */
export interface SlotStats {
  limit: number;
  maxActive: number;
  meanActive: number;
  waiting: number;
}

export interface BotStats {
  statements: number;
  /** process.cpuUsage() of the bot process, µs. */
  cpuUserMicros: number;
  cpuSystemMicros: number;
  /** 429s the app's own Web API client met (the sweep's backlog has a client of its own). */
  appRateLimited: number;
}

/** One request as the bot's HTTP server saw it (epoch ms, fractional, comparable across processes). */
export interface ServerTiming {
  /** The `x-bench-id` header the bench put on the request. */
  id: string;
  /** The server's `request` event: headers parsed, the listener about to run. */
  arrived: number;
  /** The response handed to the kernel (`finish`): the ack is on its way. */
  acked: number;
}

const epochNow = () => performance.timeOrigin + performance.now();

/**
 * Whether a burst is being watched (see takeServerTimings): only then does every HTTP server in
 * this process note its requests, and the event loop's delay and GC pauses are recorded. The
 * delay monitor wakes the loop every millisecond (about 2 % of a core), which the cycles, timed
 * from the CPU they cost, must not pay.
 */
let watching = false;

// Every HTTP server in this process notes when a request reached it and when its response left.
const serverTimings: ServerTiming[] = [];
const emit = Server.prototype.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
  if (watching && event === 'request') {
    const arrived = epochNow();
    const [req, res] = args as [{ headers: Record<string, unknown> }, { once(e: 'finish', f: () => void): void }];
    const id = req.headers['x-bench-id'];
    if (typeof id === 'string') res.once('finish', () => serverTimings.push({ id, arrived, acked: epochNow() }));
  }
  return emit.call(this, event, ...args);
} as typeof Server.prototype.emit;

export interface LoopStats {
  /** Longest event-loop stall while watched (monitorEventLoopDelay, 1 ms resolution). */
  maxDelayMs: number;
  /** Garbage collection while watched: total pause and longest, ms. */
  gcMs: number;
  gcMaxMs: number;
}

const loopDelay = monitorEventLoopDelay({ resolution: 1 });
let gcMs = 0;
let gcMaxMs = 0;
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcMs += e.duration;
    gcMaxMs = Math.max(gcMaxMs, e.duration);
  }
});

/** What was recorded since the last call; records from now until the next call when `watch`. */
function takeLoopStats(watch: boolean): LoopStats {
  const out = { maxDelayMs: watching ? loopDelay.max / 1e6 : 0, gcMs, gcMaxMs };
  loopDelay.reset();
  gcMs = 0;
  gcMaxMs = 0;
  if (watch && !watching) {
    loopDelay.enable();
    gcObserver.observe({ entryTypes: ['gc'] });
  } else if (!watch && watching) {
    loopDelay.disable();
    gcObserver.disconnect();
  }
  watching = watch;
  return out;
}

let slotSampler: { slots: RunSlots; max: number; sum: number; n: number } | undefined;

function sampleSlots(slots: RunSlots): void {
  slotSampler = { slots, max: 0, sum: 0, n: 0 };
  const timer = setInterval(() => {
    const s = slotSampler!;
    s.max = Math.max(s.max, slots.active);
    s.sum += slots.active;
    s.n += 1;
  }, 10);
  timer.unref();
}

function takeSlotStats(): SlotStats {
  const s = slotSampler;
  if (!s) return { limit: 0, maxActive: 0, meanActive: 0, waiting: 0 };
  const out = { limit: s.slots.limit, maxActive: s.max, meanActive: Math.round((s.n ? s.sum / s.n : 0) * 10) / 10, waiting: s.slots.waiting };
  Object.assign(s, { max: 0, sum: 0, n: 0 });
  return out;
}

let pool: CountingPool | undefined;
let appRateLimited = 0;
let slack: SlackApp | undefined;
let started: BotStartArgs | undefined;

export type FloorKind = 'http' | 'bolt' | 'bolt-cycle';

interface Floor {
  port: number;
  stop(): Promise<void>;
  /** Resolves once no work handed off after an ack is still running. */
  idle?(): Promise<void>;
}

let floor: Floor | undefined;
let profiler: Session | undefined;

async function startFloor(kind: FloorKind): Promise<Floor> {
  const a = started!;
  if (kind === 'bolt-cycle') return startCycleFloor(a);
  if (kind === 'http') {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as AddressInfo).port,
      stop: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  }
  const receiver = new HTTPReceiver({ signingSecret: a.signingSecret, endpoints: '/slack/events', processBeforeResponse: false, logLevel: LogLevel.ERROR });
  const app = new App({ token: a.botToken, receiver, clientOptions: { slackApiUrl: a.apiUrl }, logLevel: LogLevel.ERROR, deferInitialization: true, convoStore: false });
  app.action(ACTION_IDS.approve, async ({ ack }) => {
    await ack();
  });
  await app.init();
  const server = (await app.start(0)) as Server;
  return {
    port: (server.address() as AddressInfo).port,
    async stop() {
      const stopping = app.stop();
      server.closeAllConnections();
      await stopping;
    },
  };
}

/** What the cycle floor remembers of a posted card, in place of the real bot's database rows. */
interface FloorCard {
  recordId: string;
  user: string;
  channel: string;
  /** The mention, which carries the working reaction. */
  mentionTs: string;
  /** Known before the post returns: the driver sees the card on the fake, and may click it, before the bot does. */
  cardTs: Promise<string>;
}

/**
 * The Slack plumbing of a cycle and nothing else: a Bolt app with the real bot's receiver and
 * app settings whose listeners make the real bot's Web API calls, in the same order, with cards
 * from the real builders, but keep their state in a Map (no database, no agent, no model). Its
 * cycles per second are what the required stack allows on this machine, whatever the bot does.
 */
async function startCycleFloor(a: BotStartArgs): Promise<Floor> {
  const receiver = new HTTPReceiver({ signingSecret: a.signingSecret, endpoints: '/slack/events', processBeforeResponse: false, logLevel: LogLevel.ERROR });
  const app = new App({
    token: a.botToken,
    receiver,
    // As the bench bot: its transport, and a failed call must show, not be retried away.
    clientOptions: { slackApiUrl: a.apiUrl, retryConfig: { retries: 0 }, fetch: nodeHttpFetch() },
    logLevel: LogLevel.ERROR,
    deferInitialization: true,
    convoStore: false,
  });
  const tasks = new BackgroundTasks(createLogger({ level: 'silent', name: 'bench-floor' }));
  const cards = new Map<number, FloorCard>();
  let nextActionId = 0;
  const failures: string[] = [];
  // A floor that quietly skipped calls would flatter itself: failures are kept and reported on stop.
  const run = (name: string, work: () => Promise<void>) =>
    tasks.run(name, () => work().catch((error: unknown) => void failures.push(`${name}: ${String(error)}`)));

  app.event('app_mention', async ({ event }) => {
    if (!event.user) return;
    const mention = { channel: event.channel, ts: event.ts, user: event.user, text: event.text };
    run('app_mention', () => floorMention(app.client, a.approvers, cards, ++nextActionId, mention, failures));
  });
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.approve, async ({ ack, body, action }) => {
    await ack();
    run('approve', () => floorApprove(app.client, a.approvers, cards, body.user.id, action));
  });
  await app.init();
  const server = (await app.start(0)) as Server;
  // As the real bot in HTTP mode.
  tasks.ackFirst(inboundRequests(server));
  return {
    port: (server.address() as AddressInfo).port,
    idle: () => tasks.drain(),
    async stop() {
      const stopping = app.stop();
      server.closeAllConnections();
      await stopping;
      await tasks.drain();
      if (failures.length > 0) throw new Error(`the cycle floor failed ${failures.length} times: ${failures.slice(0, 3).join('; ')}`);
    },
  };
}

/** As the real bot's card for the bench tool, before and after the decision. */
function floorCard(approvers: string[], actionId: number, card: Pick<FloorCard, 'recordId' | 'user'>, state: ApprovalCardState) {
  return {
    text: `Approval needed: ${toolName} (request #${actionId})`,
    blocks: approvalCard({
      actionId,
      runId: 'floor',
      toolCallId: 'floor',
      toolName,
      args: { id: card.recordId },
      path: [],
      requester: card.user,
      approvers,
      quorum: 1,
      approvals: [],
      expiresAt: new Date(Date.now() + 3_600_000),
      fingerprint: createHash('sha256').update(card.recordId).digest('hex'),
      state,
    }),
  };
}

/**
 * The real bot's mention: the card in the thread, with the real bot's working reaction on the
 * mention meanwhile (the same helper and delay: 👀 only if the card takes longer than that).
 */
async function floorMention(
  client: webApi.WebClient,
  approvers: string[],
  cards: Map<number, FloorCard>,
  actionId: number,
  m: { channel: string; ts: string; user: string; text: string },
  failures: string[],
): Promise<void> {
  // The helper swallows a failed reaction call (it only costs the signal); the floor must not hide one.
  const logger = { debug: (o: { err?: unknown }) => void failures.push(`reaction: ${String(o.err)}`) } as unknown as Logger;
  const working = workingReaction({ client, logger, workingReactionDelayMs: DEFAULT_WORKING_REACTION_DELAY_MS }, m);
  const recordId = m.text.trim().split(/\s+/).pop() ?? '';
  const cardTs = client.chat
    .postMessage({ channel: m.channel, thread_ts: m.ts, ...floorCard(approvers, actionId, { recordId, user: m.user }, { kind: 'pending' }) })
    .then((posted) => posted.ts ?? Promise.reject(new Error('chat.postMessage returned no ts')));
  cards.set(actionId, { recordId, user: m.user, channel: m.channel, mentionTs: m.ts, cardTs });
  await cardTs;
  await working.done();
}

/** The real bot's Approve: the card redrawn as decided, then the run's answer in the thread. */
async function floorApprove(
  client: webApi.WebClient,
  approvers: string[],
  cards: Map<number, FloorCard>,
  user: string,
  action: ButtonAction,
): Promise<void> {
  const actionId = parseCardBlockId(action.block_id)?.actionId ?? -1;
  const card = cards.get(actionId);
  if (!card) throw new Error(`no card for action ${actionId}`);
  cards.delete(actionId);
  const decided = floorCard(approvers, actionId, card, { kind: 'approved', by: [user], at: new Date() });
  await client.chat.update({ channel: card.channel, ts: await card.cardTs, ...decided });
  for (const answer of answerMessages(`Deleted ${card.recordId}.`)) {
    await client.chat.postMessage({ channel: card.channel, thread_ts: card.mentionTs, ...answer });
  }
}

const rpc = serveRpc({
  async start(a: BotStartArgs) {
    started = a;
    pool = await openCountingPool(a.databaseUrl, a.schema);
    const policy = definePolicy({ tools: { [toolName]: { requireApproval: true, approvers: a.approvers } } });
    const agent = benchAgent(pool.db, (e) => rpc.emit('executed', e.recordId), {
      policy,
      botUserId: a.botUserId,
      ...(a.backlog ? { maxConcurrentRuns: a.backlog.maxConcurrentRuns } : {}),
    });
    slack = createSlackApp({
      config: { botToken: a.botToken, signingSecret: a.signingSecret, apiUrl: a.apiUrl, port: 0 },
      agent,
      db: pool.db,
      logger: createLogger({ level: 'silent', name: 'bench-bot' }),
      // Nothing should fail against the fake; a failure must show, not be retried away. The backlog
      // suite's fake limits rates as Slack does, and its bot retries as in production.
      ...(a.backlog ? {} : { retryConfig: { retries: 0 } }),
      sweepIntervalMs: a.backlog?.sweepIntervalMs ?? 0,
    });
    if (a.backlog) sampleSlots(agent.runtime.runSlots);
    slack.app.client.on(webApi.WebClientEvent.RATE_LIMITED, () => (appRateLimited += 1));
    const { port } = await slack.start();
    return { port };
  },
  /** The run slots since the last call (backlog mode). */
  slots: (): SlotStats => takeSlotStats(),
  /** Resolves once no work handed off after an ack is still running. */
  async idle() {
    await slack?.idle();
    await floor?.idle?.();
  },
  stats(): BotStats {
    const cpu = process.cpuUsage();
    return { statements: pool?.counter.count ?? 0, cpuUserMicros: cpu.user, cpuSystemMicros: cpu.system, appRateLimited };
  },
  /**
   * The server-side timings collected since the last call, and how the event loop fared meanwhile;
   * with `watch`, they are collected until the next call (and nothing is, otherwise).
   */
  takeServerTimings: (args: { watch?: boolean } | null): { requests: ServerTiming[]; loop: LoopStats } => ({
    requests: serverTimings.splice(0),
    loop: takeLoopStats(args?.watch === true),
  }),
  async startFloor(kind: FloorKind) {
    await floor?.stop();
    floor = await startFloor(kind);
    return { port: floor.port };
  },
  /** In a process of its own (no bot, no pool, a small heap): only a floor server, from these settings. */
  async startFloorOnly({ kind, args }: { kind: FloorKind; args: BotStartArgs }) {
    started = args;
    await floor?.stop();
    floor = await startFloor(kind);
    return { port: floor.port };
  },
  async stopFloor() {
    await floor?.stop();
    floor = undefined;
  },
  /** Starts V8's CPU profiler in this process (see BENCH_BOT_CPU_PROF in slack-cycles.ts). */
  async startProfile() {
    profiler ??= new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
    await profiler.post('Profiler.start');
  },
  /** Stops the profiler; writes `<dir>/<name>.cpuprofile` (open it in Chrome DevTools or speedscope). */
  async stopProfile({ dir, name }: { dir: string; name: string }) {
    if (!profiler) return;
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
  },
  /** Starts timing every statement by its text. */
  traceStatements() {
    if (pool) pool.counter.timings = new Map();
  },
  /** Stops timing; returns each statement's text and round trips (ms). */
  takeStatementTrace(): Array<[string, number[]]> {
    const timings = pool?.counter.timings;
    if (pool) pool.counter.timings = undefined;
    return timings ? [...timings] : [];
  },
  async stop() {
    await floor?.stop();
    await slack?.stop();
    await pool?.close();
    floor = undefined;
    slack = undefined;
    pool = undefined;
  },
});
