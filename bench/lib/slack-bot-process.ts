/**
 * The bot under test, in a process of its own: the bench agent (scripted model, one tool that
 * needs approval) behind createSlackApp (Bolt over HTTP on an ephemeral port), working in the
 * parent's bench schema through a counting pool. Started by the slack suite:
 *   node --import tsx bench/lib/slack-bot-process.ts   (with an IPC channel; see child-rpc.ts)
 * Every tool execution is reported to the parent as an `executed` event.
 *
 * It can also serve two floors on other ports, for comparison: a bare node:http server that
 * answers 200 once it has read the body, and a Bolt app (same receiver settings) whose Approve
 * listener only acks.
 */
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { createLogger } from '../../src/logger.js';
import { ACTION_IDS } from '../../src/slack/blocks/action-ids.js';
import { createSlackApp, type SlackApp } from '../../src/slack/create-slack-app.js';
import { openCountingPool, type CountingPool } from './bench-db.js';
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
}

export interface BotStats {
  statements: number;
  /** process.cpuUsage() of the bot process, µs. */
  cpuUserMicros: number;
  cpuSystemMicros: number;
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

// Every HTTP server in this process notes when a request reached it and when its response left.
const serverTimings: ServerTiming[] = [];
const emit = Server.prototype.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
  if (event === 'request') {
    const arrived = epochNow();
    const [req, res] = args as [{ headers: Record<string, unknown> }, { once(e: 'finish', f: () => void): void }];
    const id = req.headers['x-bench-id'];
    if (typeof id === 'string') res.once('finish', () => serverTimings.push({ id, arrived, acked: epochNow() }));
  }
  return emit.call(this, event, ...args);
} as typeof Server.prototype.emit;

export interface LoopStats {
  /** Longest event-loop stall since the last reading, ms (monitorEventLoopDelay, 1 ms resolution). */
  maxDelayMs: number;
  /** Garbage collection since the last reading: total pause and longest, ms. */
  gcMs: number;
  gcMaxMs: number;
}

const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
let gcMs = 0;
let gcMaxMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcMs += e.duration;
    gcMaxMs = Math.max(gcMaxMs, e.duration);
  }
}).observe({ entryTypes: ['gc'] });

function takeLoopStats(): LoopStats {
  const out = { maxDelayMs: loopDelay.max / 1e6, gcMs, gcMaxMs };
  loopDelay.reset();
  gcMs = 0;
  gcMaxMs = 0;
  return out;
}

let pool: CountingPool | undefined;
let slack: SlackApp | undefined;
let started: BotStartArgs | undefined;
let floor: { port: number; stop(): Promise<void> } | undefined;

async function startFloor(kind: 'http' | 'bolt'): Promise<{ port: number; stop(): Promise<void> }> {
  const a = started!;
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
  const app = new App({ token: a.botToken, receiver, clientOptions: { slackApiUrl: a.apiUrl }, logLevel: LogLevel.ERROR, deferInitialization: true });
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

const rpc = serveRpc({
  async start(a: BotStartArgs) {
    started = a;
    pool = await openCountingPool(a.databaseUrl, a.schema);
    const policy = definePolicy({ tools: { [toolName]: { requireApproval: true, approvers: a.approvers } } });
    const agent = benchAgent(pool.db, (e) => rpc.emit('executed', e.recordId), { policy, botUserId: a.botUserId });
    slack = createSlackApp({
      config: { botToken: a.botToken, signingSecret: a.signingSecret, apiUrl: a.apiUrl, port: 0 },
      agent,
      db: pool.db,
      logger: createLogger({ level: 'silent', name: 'bench-bot' }),
      // Nothing should fail against the fake; a failure must show, not be retried away.
      retryConfig: { retries: 0 },
      sweepIntervalMs: 0,
    });
    const { port } = await slack.start();
    return { port };
  },
  /** Resolves once no work handed off after an ack is still running. */
  idle: () => slack?.idle(),
  stats(): BotStats {
    const cpu = process.cpuUsage();
    return { statements: pool?.counter.count ?? 0, cpuUserMicros: cpu.user, cpuSystemMicros: cpu.system };
  },
  /** The server-side timings collected since the last call, and how the event loop fared meanwhile. */
  takeServerTimings: (): { requests: ServerTiming[]; loop: LoopStats } => ({ requests: serverTimings.splice(0), loop: takeLoopStats() }),
  async startFloor(kind: 'http' | 'bolt') {
    await floor?.stop();
    floor = await startFloor(kind);
    return { port: floor.port };
  },
  async stopFloor() {
    await floor?.stop();
    floor = undefined;
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
