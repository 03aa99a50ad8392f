/**
 * The Slack simulator's server: the Web API on loopback in Slack's wire format (form or JSON
 * bodies, Bearer or `token` auth, HTTP 200 `ok: false` errors, 429 with Retry-After), response_url
 * posts, and Socket Mode on the same port. The real `WebClient` (and Bolt's `App`, via
 * `clientOptions.slackApiUrl`) run unchanged against it. Every call is recorded, and tests can
 * inject the failures Slack produces (see fault-plan.ts).
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultPlan } from './fault-plan.js';
import { FAKE_APP_TOKEN, FAKE_BOT_TOKEN, SLACK_IDS } from './ids.js';
import { clone } from './json.js';
import { StepClock } from './slack-ts.js';
import { attachSocketMode, type SocketModeServer } from './socket-mode.js';
import { SimulatorStore, type Ephemeral } from './store.js';
import type { RecordedCall, SlackSimulator, SlackSimulatorOptions, StoredEphemeral } from './types.js';
import { webApiEndpoint } from './web-api-endpoint.js';
import { slackWebApi } from './web-api-methods.js';
import { optionsWorkspace } from './workspace.js';

const DEFAULT_FIRST_TS = '1726133700.000100';

const DEFAULT_SCOPES = [
  'app_mentions:read',
  'assistant:write',
  'channels:history',
  'chat:write',
  'commands',
  'groups:history',
  'groups:read',
  'im:history',
  'im:write',
  'reactions:write',
  'usergroups:read',
  'users:read',
];

export async function startSlackSimulator(options: SlackSimulatorOptions = {}): Promise<SlackSimulator> {
  const botToken = options.botToken ?? FAKE_BOT_TOKEN;
  const appToken = options.appToken ?? FAKE_APP_TOKEN;
  const tokens = new Set([botToken, ...(options.extraTokens ?? [])]);
  const scopes = (options.scopes ?? DEFAULT_SCOPES).join(',');

  const emitter = new EventEmitter();
  // waitFor may have many concurrent listeners in a busy test; none of them leak past their timeout.
  emitter.setMaxListeners(0);

  const store = new SimulatorStore({
    clock: () => new StepClock(options.firstTs ?? DEFAULT_FIRST_TS),
    owner: { teamId: SLACK_IDS.teamId, appId: SLACK_IDS.appId, botId: SLACK_IDS.botId },
    responseUrlPrefix: '/actions/',
    ...(options.expiredTriggerIds !== undefined ? { expiredTriggerIds: options.expiredTriggerIds } : {}),
  });
  const workspace = optionsWorkspace(options);
  const webApi = slackWebApi(store, {
    workspace,
    checkBlocks: options.validateBlocks ?? true,
    ...(options.echo ? { echo: options.echo } : {}),
  });
  const plan = new FaultPlan();
  let calls: RecordedCall[] = [];

  function record(call: RecordedCall): void {
    calls.push(call);
    emitter.emit('call', call);
  }

  // Socket Mode needs the port, known only once listening; calls cannot arrive before then.
  let socketMode: SocketModeServer | undefined;
  const endpoint = webApiEndpoint({
    ...webApi,
    acceptsToken: (token) => tokens.has(token),
    scopes,
    faults: plan,
    record,
    appLevelCall: (method, token) => socketMode!.appLevelCall(method, token),
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (await endpoint(req, res, url)) return;
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  socketMode = attachSocketMode(server, emitter, appToken, () => port);

  const simulator: SlackSimulator = {
    apiUrl: `${origin}/api/`,
    origin,
    port,
    botToken,
    appToken,
    socket: socketMode.side,
    get calls() {
      return [...calls];
    },
    callsTo: (method) => calls.filter((c) => c.method === method),
    messages: (channel, threadTs) => clone(threadTs === undefined ? store.messages(channel) : store.thread(channel, threadTs)),
    message: (channel, ts) => clone(store.message(channel, ts)),
    ephemerals: (channel) => store.ephemerals().filter((e) => channel === undefined || e.channel === channel).map(asPosted),
    views: () => clone(store.allViews()),
    view: (id) => clone(store.view(id)),
    homeView: (user) => clone(store.homeView(user)),
    assistantStatus: (channel, threadTs) => store.assistantStatus(channel, threadTs),
    isStreaming: (channel, ts) => store.streaming.has(`${channel} ${ts}`),
    seedMessage: (m) => clone(store.seedMessage(m)),
    setUsergroup: (id, users) => workspace.setUsergroup(id, users),
    setExpiredTriggerIds: (ids) => store.triggers.expire(ids),
    failNext: (method, fault, times = 1) => plan.failNext(method, fault, times),
    failCall: (method, n, fault) => plan.failCall(method, n, fault),
    delayNext: (method, ms, times = 1) => plan.delayNext(method, ms, times),
    dropResponseNext: (method, times = 1) => plan.dropNext(method, times),
    rateLimit: (method, limit) => plan.rateLimit(method, limit),
    holdResponseNext: (method) => plan.holdNext(method),
    responseUrl: (target) => store.responseUrls.create(origin, target),
    onCall: (listener) => {
      emitter.on('call', listener);
      return () => emitter.off('call', listener);
    },
    waitFor: (predicate, { timeoutMs = 5_000 } = {}) => {
      const matches = typeof predicate === 'string' ? (c: RecordedCall) => c.method === predicate : predicate;
      return new Promise<RecordedCall>((resolve, reject) => {
        const check = (c: RecordedCall): boolean => {
          try {
            return matches(c);
          } catch (err) {
            cleanup();
            reject(err instanceof Error ? err : new Error(String(err)));
            return false;
          }
        };
        const onCall = (c: RecordedCall) => {
          if (check(c)) {
            cleanup();
            resolve(c);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          const seen = calls.map((c) => `${c.method}${c.ok ? '' : `(${c.error ?? c.status})`}`).join(', ') || 'none';
          reject(new Error(`Slack simulator: no matching call within ${timeoutMs}ms; calls so far: ${seen}`));
        }, timeoutMs);
        function cleanup() {
          clearTimeout(timer);
          emitter.off('call', onCall);
        }
        emitter.on('call', onCall);
        const past = calls.find(check);
        if (past) {
          cleanup();
          resolve(past);
        }
      });
    },
    reset: () => {
      calls = [];
      store.reset();
      workspace.reset();
      plan.reset();
      socketMode.reset();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        socketMode.close();
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive sockets from fetch would otherwise hold close() open until they idle out.
        server.closeAllConnections();
      }),
  };
  return simulator;
}

/** An ephemeral as the simulator reports it: Slack's `message_ts` names its ts. */
function asPosted({ ts, ...rest }: Ephemeral): StoredEphemeral {
  return clone({ ...rest, message_ts: ts });
}
