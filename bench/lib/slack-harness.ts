/**
 * The Slack side of the bench, in three processes:
 *   - the bot under test (bench/lib/slack-bot-process.ts): createSlackApp, i.e. the real Bolt
 *     HTTP endpoint, over the bench agent and a counting pool on the bench schema;
 *   - the Slack simulator the e2e tests use (src/simulator, in bench/lib/simulator-process.ts), which tells
 *     this process about every call the bot makes;
 *   - this one: Slack's delivery side (signed Events API and interactivity requests over
 *     node:http) and the clock, with an index of what the bot posted, by thread, that resolves
 *     promises as the calls come in (no polling, no sleeps).
 * Keeping them apart means the ack times are the bot's, not the bot's plus the fake's and the
 * client's work on one shared event loop.
 */
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { appMentionEnvelope, blockActionsPayload, FAKE_BOT_TOKEN, formBody, SLACK_IDS } from '../../src/simulator/index.js';
import { ChildRpc } from './child-rpc.js';
import type { CallSummary } from './simulator-process.js';
import type { BotStartArgs, BotStats, FloorKind, LoopStats, ServerTiming, SlotStats } from './slack-bot-process.js';
import type { RateLimit } from '../../src/simulator/index.js';
import { SIGNING_SECRET, SignedClient, type SignedResponse } from './signed-client.js';


export { SignedClient, type SignedResponse };
export type { BotStats, LoopStats, ServerTiming, SlotStats };

const libDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(libDir, '..', '..');

type Block = Record<string, unknown>;

export interface PostedCard {
  actionId: number;
  channel: string;
  /** The card message's own ts. */
  ts: string;
  threadTs: string;
  text: string;
  blocks: Block[];
  /** The actions block's id (`approval:<actionId>`) and the Approve button's value, as a click echoes them. */
  blockId: string;
  approveValue: string;
  /** performance.now() when this process learned of the post. */
  at: number;
}

export interface PostedAnswer {
  text: string;
  at: number;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  settled: boolean;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  const d: Deferred<T> = {
    promise,
    settled: false,
    resolve(value) {
      if (d.settled) return;
      d.settled = true;
      resolve(value);
    },
  };
  return d;
}

/** Rejects after `ms` unless `promise` settles first; the timer never outlives the wait. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench: no ${what()} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** What the bot did in one thread. */
export class ThreadWatch {
  readonly card = deferred<PostedCard>();
  /** The first plain message in the thread after the card: the model's answer. */
  readonly answer = deferred<PostedAnswer>();
  cardUpdates = 0;
  ephemerals = 0;
  /** Messages that were neither the card nor the answer (errors, "still waiting" notices…). */
  readonly other: string[] = [];

  constructor(
    readonly channel: string,
    readonly threadTs: string,
  ) {}
}

interface TrafficTotals {
  calls: number;
  byMethod: Record<string, number>;
  /** Calls the fake answered with ok: false, as `method: error`. */
  failed: string[];
  /** Thread messages in threads nobody was watching (any would mean a cycle lost track). */
  unwatched: number;
}

/** Sorts the Web API calls the fake reports into the watched threads. */
export class SlackTraffic {
  private readonly threads = new Map<string, ThreadWatch>();
  private readonly cards = new Map<string, ThreadWatch>();
  readonly totals: TrafficTotals = { calls: 0, byMethod: {}, failed: [], unwatched: 0 };

  /** Starts collecting what the bot posts in this thread; call before the message that starts it. */
  watch(channel: string, threadTs: string): ThreadWatch {
    const w = new ThreadWatch(channel, threadTs);
    this.threads.set(`${channel}/${threadTs}`, w);
    return w;
  }

  forget(w: ThreadWatch): void {
    this.threads.delete(`${w.channel}/${w.threadTs}`);
    if (w.card.settled) void w.card.promise.then((c) => this.cards.delete(`${c.channel}/${c.ts}`));
  }

  /** Called with every call as it is filed, and when this process learned of it. */
  readonly listeners: Array<(call: CallSummary, at: number) => void> = [];

  file(calls: CallSummary[]): void {
    const now = performance.now();
    for (const call of calls) {
      this.fileOne(call, now);
      for (const listener of this.listeners) listener(call, now);
    }
  }

  private fileOne(call: CallSummary, now: number): void {
    const t = this.totals;
    t.calls += 1;
    t.byMethod[call.method] = (t.byMethod[call.method] ?? 0) + 1;
    if (!call.ok) t.failed.push(`${call.method}: ${call.error}`);
    const channel = call.channel ?? '';
    if (call.method === 'chat.update') {
      const w = this.cards.get(`${channel}/${call.ts}`);
      if (w) w.cardUpdates += 1;
      return;
    }
    if (call.method !== 'chat.postMessage' && call.method !== 'chat.postEphemeral') return;
    const w = call.threadTs === undefined ? undefined : this.threads.get(`${channel}/${call.threadTs}`);
    if (!w) {
      t.unwatched += 1;
      return;
    }
    if (call.method === 'chat.postEphemeral') {
      w.ephemerals += 1;
      return;
    }
    const text = call.text ?? '';
    if (call.card && !w.card.settled) {
      this.cards.set(`${channel}/${call.card.ts}`, w);
      w.card.resolve({
        actionId: Number(call.card.blockId.split(':')[1]),
        channel,
        ts: call.card.ts,
        threadTs: w.threadTs,
        text,
        blocks: call.card.blocks as Block[],
        blockId: call.card.blockId,
        approveValue: call.card.approveValue,
        at: now,
      });
    } else if (call.ok && w.card.settled && !w.answer.settled && text.startsWith('Deleted ')) {
      w.answer.resolve({ text, at: now });
    } else {
      w.other.push(text);
    }
  }
}

export interface Mention {
  channel: string;
  ts: string;
  text: string;
  user: string;
  /** The signed request's body (JSON), built ahead of time. */
  body: string;
}

let mentionCounter = 0;

/** A mention asking the bot to delete a record, in a channel of its own (the fake keeps a sorted list per channel). */
export function mentionFor(recordId: string, user: string): Mention {
  mentionCounter += 1;
  const channel = `C0B${mentionCounter.toString(36).toUpperCase().padStart(7, '0')}`;
  const ts = `${1_726_300_000 + mentionCounter}.000100`;
  const text = `<@${SLACK_IDS.botUserId}> delete record ${recordId}`;
  return { channel, ts, text, user, body: JSON.stringify(appMentionEnvelope({ text, user, channel, ts })) };
}

let responseUrlCounter = 0;

/** The form body of a click on the card's Approve button, with the message echoed as Slack does. */
export function approveClickBody(fakeOrigin: string, card: PostedCard, user: string): string {
  responseUrlCounter += 1;
  return formBody(
    blockActionsPayload({
      user,
      channel: card.channel,
      messageTs: card.ts,
      threadTs: card.threadTs,
      actionId: ACTION_IDS.approve,
      blockId: card.blockId,
      value: card.approveValue,
      buttonText: 'Approve',
      style: 'primary',
      message: { text: card.text, blocks: card.blocks as never },
      // On the fake, so nothing could leave loopback; the fake refuses it (and the bench fails) if the bot ever uses it.
      responseUrl: `${fakeOrigin}/actions/${SLACK_IDS.teamId}/${String(responseUrlCounter).padStart(13, '0')}/bench`,
    }),
  );
}

export interface CpuMicros {
  user: number;
  system: number;
}

export interface SlackHarness {
  traffic: SlackTraffic;
  client: SignedClient;
  fakeOrigin: string;
  /** Called with the record id of every tool execution in the bot. */
  onExecuted(listener: (recordId: string) => void): void;
  seed(mentions: Mention[]): Promise<void>;
  /** Waits until the bot has nothing running and every call it made has been filed here. */
  settle(): Promise<void>;
  botStats(): Promise<BotStats>;
  cpu(): Promise<{ bot: CpuMicros; fake: CpuMicros; driver: CpuMicros }>;
  traceStatements(): Promise<void>;
  /** The bot process's CPU profile, from start until stop, written to `<dir>/<name>.cpuprofile`. */
  startProfile(): Promise<void>;
  stopProfile(dir: string, name: string): Promise<void>;
  takeStatementTrace(): Promise<Array<[string, number[]]>>;
  /**
   * When each request since the last call reached the bot's HTTP server and when its ack left,
   * and how its event loop fared. Only watched from a call with `watch` until the next call: the
   * loop-delay monitor costs the process CPU on every millisecond it runs.
   */
  takeServerTimings(watch?: boolean): Promise<{ requests: ServerTiming[]; loop: LoopStats }>;
  /** Starts a floor server in the bot process (see slack-bot-process.ts); returns a client for it. */
  startFloor(kind: FloorKind): Promise<SignedClient>;
  stopFloor(): Promise<void>;
  /**
   * A floor server alone in a fresh process, so that nothing of the bot (its heap, its timers)
   * is in its timings or its CPU; `cpu` reads that process's CPU time, `stop` ends it.
   */
  /** Another instance of the bot on the same schema and fake (as its own process, with the same settings). */
  addBot(): Promise<ExtraBot>;
  /** Slack's rate limit on a method, on the fake. */
  rateLimit(method: string, limit: RateLimit | undefined): Promise<void>;
  /** The first bot's run slots since the last reading (backlog mode). */
  slots(): Promise<SlotStats>;
  startFloorProcess(kind: 'http' | 'bolt'): Promise<{
    client: SignedClient;
    cpu(): Promise<CpuMicros>;
    takeServerTimings(watch?: boolean): Promise<{ requests: ServerTiming[]; loop: LoopStats }>;
    stop(): Promise<void>;
  }>;
  close(): Promise<void>;
}

/** A second instance of the bot (see SlackHarness.addBot). */
export interface ExtraBot {
  client: SignedClient;
  slots(): Promise<SlotStats>;
  stats(): Promise<BotStats>;
}

/** Starts the fake Web API, then the bot against it (with a silent logger), each in its own process. */
export async function startSlackHarness(options: { databaseUrl: string; schema: string; approvers: string[]; backlog?: BotStartArgs['backlog'] }): Promise<SlackHarness> {
  const children: ChildRpc[] = [];
  const client: { current?: SignedClient } = {};
  const closeAll = async () => {
    client.current?.close();
    // The bot first (it stops taking requests and finishes its work), then the fake it talks to.
    for (const child of [...children].reverse()) {
      await child.call(child.name.startsWith('bot') ? 'stop' : 'close').catch(() => {});
      await child.close();
    }
  };
  try {
    const traffic = new SlackTraffic();
    const fake = await ChildRpc.spawn('simulator', join(libDir, 'simulator-process.ts'), { cwd: repoRoot });
    children.push(fake);
    fake.on('calls', (calls: CallSummary[]) => traffic.file(calls));
    const { apiUrl, origin } = await fake.call<{ apiUrl: string; origin: string }>('start');
    const bot = await ChildRpc.spawn('bot', join(libDir, 'slack-bot-process.ts'), { cwd: repoRoot });
    children.push(bot);
    const botArgs: BotStartArgs = {
      databaseUrl: options.databaseUrl,
      schema: options.schema,
      botToken: FAKE_BOT_TOKEN,
      signingSecret: SIGNING_SECRET,
      apiUrl,
      botUserId: SLACK_IDS.botUserId,
      approvers: options.approvers,
      ...(options.backlog ? { backlog: options.backlog } : {}),
    };
    const { port } = await bot.call<{ port: number }>('start', botArgs);
    client.current = new SignedClient(`http://127.0.0.1:${port}/slack/events`);
    const stats = (rpc: ChildRpc) =>
      rpc.call<{ cpuUserMicros: number; cpuSystemMicros: number }>('stats').then((s) => ({ user: s.cpuUserMicros, system: s.cpuSystemMicros }));
    return {
      traffic,
      client: client.current,
      fakeOrigin: origin,
      onExecuted: (listener) => bot.on('executed', listener),
      seed: (mentions) => fake.call('seed', mentions.map((m) => ({ channel: m.channel, text: m.text, user: m.user, ts: m.ts }))),
      async settle() {
        await bot.call('idle');
        // The fake has recorded every call the bot made; one round trip flushes its reports to us.
        await fake.call('stats');
      },
      botStats: () => bot.call<BotStats>('stats'),
      async cpu() {
        const [b, f] = await Promise.all([stats(bot), stats(fake)]);
        const d = process.cpuUsage();
        return { bot: b, fake: f, driver: { user: d.user, system: d.system } };
      },
      traceStatements: () => bot.call('traceStatements'),
      startProfile: () => bot.call('startProfile'),
      stopProfile: (dir, name) => bot.call('stopProfile', { dir, name }),
      takeStatementTrace: () => bot.call<Array<[string, number[]]>>('takeStatementTrace'),
      takeServerTimings: (watch) => bot.call<{ requests: ServerTiming[]; loop: LoopStats }>('takeServerTimings', { watch }),
      async startFloor(kind) {
        const { port: floorPort } = await bot.call<{ port: number }>('startFloor', kind);
        return new SignedClient(`http://127.0.0.1:${floorPort}/slack/events`);
      },
      stopFloor: () => bot.call('stopFloor'),
      async addBot() {
        const extra = await ChildRpc.spawn(`bot-${children.length}`, join(libDir, 'slack-bot-process.ts'), { cwd: repoRoot });
        // Stopped before the fake, as the first bot is (see closeAll).
        children.splice(1, 0, extra);
        const { port: extraPort } = await extra.call<{ port: number }>('start', botArgs);
        return {
          client: new SignedClient(`http://127.0.0.1:${extraPort}/slack/events`),
          slots: () => extra.call<SlotStats>('slots'),
          stats: () => extra.call<BotStats>('stats'),
        };
      },
      rateLimit: (method, limit) => fake.call('rateLimit', { method, limit }),
      slots: () => bot.call<SlotStats>('slots'),
      async startFloorProcess(kind) {
        const child = await ChildRpc.spawn(`floor-${kind}`, join(libDir, 'slack-bot-process.ts'), { cwd: repoRoot });
        try {
          const { port: floorPort } = await child.call<{ port: number }>('startFloorOnly', { kind, args: botArgs });
          const floorClient = new SignedClient(`http://127.0.0.1:${floorPort}/slack/events`);
          return {
            client: floorClient,
            cpu: () => stats(child),
            takeServerTimings: (watch) => child.call<{ requests: ServerTiming[]; loop: LoopStats }>('takeServerTimings', { watch }),
            async stop() {
              floorClient.close();
              await child.call('stop').catch(() => {});
              await child.close();
            },
          };
        } catch (error) {
          await child.close();
          throw error;
        }
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
