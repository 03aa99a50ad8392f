/**
 * The Slack side of the bench: the real Bolt HTTP endpoint (createSlackApp) on loopback, the
 * fake Slack Web API the e2e tests use (test/helpers/fake-slack.ts), signed requests sent with
 * a bare node:http client, and an index of what the bot posted, by thread, that resolves
 * promises as calls arrive (no polling, no sleeps).
 */
import { Agent as HttpAgent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createLogger } from '../../src/logger.js';
import type { Agent } from '../../src/agent/agent.js';
import type { Db } from '../../src/db/database.js';
import { ACTION_IDS } from '../../src/slack/blocks/action-ids.js';
import { createSlackApp, type SlackApp } from '../../src/slack/create-slack-app.js';
import { FAKE_BOT_TOKEN, startFakeSlack, type FakeSlack, type RecordedCall } from '../../test/helpers/fake-slack.js';
import { appMentionEnvelope, blockActionsPayload, formBody, signRequest, SLACK_IDS } from '../../test/helpers/slack-requests.js';

export { SLACK_IDS };

export const SIGNING_SECRET = 'bench-signing-secret-5e0c1d2a9b7f';

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
  /** performance.now() when the fake recorded the post. */
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

export interface TrafficTotals {
  calls: number;
  byMethod: Record<string, number>;
  /** Calls the fake answered with ok: false, as `method: error`. */
  failed: string[];
  /** Thread messages in threads nobody was watching (any would mean a cycle lost track). */
  unwatched: number;
}

/**
 * Sorts every call the fake records into the watched threads. The fake has no subscription API,
 * only waitFor(predicate), which also offers each new call to the predicate as it is recorded: a
 * predicate that files the call and never matches is a subscription. It is re-armed when its
 * timeout passes (calls already filed are skipped) and ended by close().
 */
export class SlackTraffic {
  private readonly threads = new Map<string, ThreadWatch>();
  private readonly cards = new Map<string, ThreadWatch>();
  private readonly seen = new WeakSet<RecordedCall>();
  private closed = false;
  private armed: Promise<void> = Promise.resolve();
  private fault: unknown;
  readonly totals: TrafficTotals = { calls: 0, byMethod: {}, failed: [], unwatched: 0 };

  constructor(private readonly fake: FakeSlack) {
    this.arm();
  }

  private arm(): void {
    if (this.closed) return;
    this.armed = this.fake
      .waitFor(
        (call) => {
          if (this.closed) throw new Error('traffic watch closed');
          if (!this.seen.has(call)) {
            this.seen.add(call);
            try {
              this.file(call);
            } catch (error) {
              this.fault ??= error;
            }
          }
          return false;
        },
        { timeoutMs: 60_000 },
      )
      .then(
        () => undefined,
        () => this.arm(),
      );
  }

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

  /** Throws if filing a call ever failed (a bug in this file, not in the bot). */
  check(): void {
    if (this.fault) throw this.fault;
  }

  private file(call: RecordedCall): void {
    const now = performance.now();
    const t = this.totals;
    t.calls += 1;
    t.byMethod[call.method] = (t.byMethod[call.method] ?? 0) + 1;
    if (!call.ok) t.failed.push(`${call.method}: ${call.error ?? call.status}`);
    const args = call.args;
    const channel = String(args.channel ?? '');
    if (call.method === 'chat.update') {
      const w = this.cards.get(`${channel}/${String(args.ts)}`);
      if (w) w.cardUpdates += 1;
      return;
    }
    if (call.method !== 'chat.postMessage' && call.method !== 'chat.postEphemeral') return;
    const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
    const w = threadTs === undefined ? undefined : this.threads.get(`${channel}/${threadTs}`);
    if (!w) {
      t.unwatched += 1;
      return;
    }
    if (call.method === 'chat.postEphemeral') {
      w.ephemerals += 1;
      return;
    }
    const text = typeof args.text === 'string' ? args.text : '';
    const blocks = Array.isArray(args.blocks) ? (args.blocks as Block[]) : [];
    const actions = blocks.find((b) => b.type === 'actions' && typeof b.block_id === 'string' && b.block_id.startsWith('approval:'));
    if (call.ok && actions && !w.card.settled) {
      const approve = (actions.elements as Block[] | undefined)?.find((e) => e.action_id === ACTION_IDS.approve);
      const ts = String(call.response?.ts);
      const card: PostedCard = {
        actionId: Number(String(actions.block_id).split(':')[1]),
        channel,
        ts,
        threadTs: w.threadTs,
        text,
        blocks,
        blockId: String(actions.block_id),
        approveValue: String(approve?.value ?? ''),
        at: now,
      };
      this.cards.set(`${channel}/${ts}`, w);
      w.card.resolve(card);
    } else if (call.ok && w.card.settled && !w.answer.settled && text.startsWith('Deleted ')) {
      w.answer.resolve({ text, at: now });
    } else {
      w.other.push(text);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The predicate only runs when a call arrives: one more call makes it throw, which ends the wait and its timer.
    await fetch(`${this.fake.apiUrl}api.test`, { method: 'POST' }).then((r) => r.text()).catch(() => undefined);
    await this.armed;
  }
}

export interface SignedResponse {
  status: number;
  /** From just before the request is written to the end of the response. */
  ms: number;
  /** performance.now() at the start. */
  at: number;
}

/** A signed request, built ahead of time so that signing is not part of what is timed. */
export interface PreparedRequest {
  send(): Promise<SignedResponse>;
}

/**
 * Posts signed requests to the bot with node:http (lighter than fetch, so less of the client
 * lands in the timings; the client shares the bot's event loop).
 */
export class SignedClient {
  private agent = new HttpAgent({ keepAlive: true });
  private readonly url: URL;

  constructor(endpoint: string) {
    this.url = new URL(endpoint);
  }

  /** Drops the pooled connections: the next requests connect afresh (as a burst from Slack would). */
  freshConnections(): void {
    this.agent.destroy();
    this.agent = new HttpAgent({ keepAlive: true });
  }

  prepare(rawBody: string): PreparedRequest {
    const headers = { ...signRequest(SIGNING_SECRET, rawBody), 'content-length': String(Buffer.byteLength(rawBody)) };
    const { hostname, port, pathname } = this.url;
    const agent = this.agent;
    return {
      send: () =>
        new Promise<SignedResponse>((resolve, reject) => {
          const at = performance.now();
          const req = request({ hostname, port, path: pathname, method: 'POST', headers, agent }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - at, at }));
            res.on('error', reject);
          });
          req.setTimeout(10_000, () => req.destroy(new Error('bench: the bot did not answer within 10 s')));
          req.on('error', reject);
          req.end(rawBody);
        }),
    };
  }

  event(envelope: object): Promise<SignedResponse> {
    return this.prepare(JSON.stringify(envelope)).send();
  }

  close(): void {
    this.agent.destroy();
  }
}

let mentionCounter = 0;

/** A mention of the bot in a channel of its own (the fake keeps one sorted list per channel). */
export function mentionFor(recordId: string, requester: string): { channel: string; ts: string; envelope: object; text: string } {
  mentionCounter += 1;
  const channel = `C0B${mentionCounter.toString(36).toUpperCase().padStart(7, '0')}`;
  const ts = `${1_726_300_000 + mentionCounter}.000100`;
  const text = `<@${SLACK_IDS.botUserId}> delete record ${recordId}`;
  return { channel, ts, text, envelope: appMentionEnvelope({ text, user: requester, channel, ts }) };
}

/** The form body of a click on the card's Approve button, with the message echoed as Slack does. */
export function approveClickBody(fake: FakeSlack, card: PostedCard, user: string): string {
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
      // Served by the fake, so nothing could leave loopback even if a listener called respond().
      responseUrl: fake.responseUrl({ channel: card.channel, messageTs: card.ts, user, threadTs: card.threadTs }),
    }),
  );
}

export interface SlackHarness {
  fake: FakeSlack;
  slack: SlackApp;
  traffic: SlackTraffic;
  client: SignedClient;
  url: string;
  close(): Promise<void>;
}

/** The fake Web API, then the bot (Bolt over HTTP on an ephemeral port) against it, with a silent logger. */
export async function startSlackHarness(options: { agent: Agent; db: Db }): Promise<SlackHarness> {
  const fake = await startFakeSlack();
  const traffic = new SlackTraffic(fake);
  let slack: SlackApp | undefined;
  try {
    slack = createSlackApp({
      config: { botToken: FAKE_BOT_TOKEN, signingSecret: SIGNING_SECRET, apiUrl: fake.apiUrl, port: 0 },
      agent: options.agent,
      db: options.db,
      logger: createLogger({ level: 'silent', name: 'bench' }),
      retryConfig: { retries: 0 },
      sweepIntervalMs: 0,
    });
    const { port } = await slack.start();
    const url = `http://127.0.0.1:${port}/slack/events`;
    const client = new SignedClient(url);
    const started = slack;
    return {
      fake,
      slack: started,
      traffic,
      client,
      url,
      async close() {
        client.close();
        await started.stop();
        await traffic.close();
        await fake.close();
      },
    };
  } catch (error) {
    await slack?.stop().catch(() => {});
    await traffic.close();
    await fake.close();
    throw error;
  }
}
