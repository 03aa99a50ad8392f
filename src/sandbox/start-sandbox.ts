/**
 * A Slack workspace on localhost, for trying the bot without one: a Slack-like web UI at `/`, a
 * Slack-compatible Web API at `/api/<method>` for the bot's WebClient (SLACK_API_URL), live
 * updates to the UI over server-sent events at `/events/stream`, and the UI's actions at `/ui/*`
 * turned into signed Events API and interactivity requests to the bot's real `/slack/events`.
 * The bot runs unchanged; nothing in it knows about the sandbox.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { FaultPlan } from '../simulator/index.js';
import { BotLink } from './deliver-event.js';
import { emojiTableJson } from './emoji-table.js';
import { sendJson, sendNotFound } from './http-util.js';
import { loadMessages, persistMessages } from './persist.js';
import { SseHub } from './sse.js';
import { staticFiles } from './static-files.js';
import { SandboxStore } from './store.js';
import { uiRoutes } from './ui-routes.js';
import { webApiHandler } from './web-api.js';
import { BOT } from './workspace.js';

export interface SandboxOptions {
  /** 0 picks a free port. */
  port: number;
  /**
   * The interface to listen on. Defaults to loopback: whoever can open the UI can act as anyone
   * in the pretend workspace, so it should not be reachable from the network by accident.
   */
  host?: string;
  /** The bot's events endpoint (…/slack/events); can also be given later with `connectBot`. */
  botEventsUrl?: string;
  signingSecret: string;
  /** The only token the Web API accepts. */
  botToken: string;
  logger?: Logger;
  /** Shown in the UI's banner, e.g. "built-in demo model" or "openai/gpt-5-mini". */
  modelLabel?: string;
  /** How long a trigger_id stays usable. Slack's is 3 s; the sandbox allows more and warns. */
  triggerTtlMs?: number;
  /** Send the bot its own messages back as events, as Slack does. Default true. */
  echoBotMessages?: boolean;
  /**
   * Requests offered under the composer ("Try: …"), as the agent in use understands them and
   * without the mention, which the sandbox adds in channels; none when unset.
   */
  examples?: string[];
  /** Keep messages in this JSON file across restarts (see persist.ts); in memory only when unset. */
  stateFile?: string;
  /**
   * More routes on the sandbox's server, tried after its own: return true when handled. For
   * example the admin listing, so it stays on PORT next to the UI.
   */
  extraRoutes?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
  /** How long to wait for the bot to answer a delivery. */
  deliveryTimeoutMs?: number;
}

export interface Sandbox {
  /** The UI, e.g. http://127.0.0.1:3000 */
  readonly url: string;
  /** For SLACK_API_URL / WebClient's slackApiUrl; ends with `/api/`. */
  readonly apiUrl: string;
  readonly store: SandboxStore;
  /** Failures to inject into the bot's Web API calls (429 + Retry-After, 5xx, delays), as the simulator does. */
  readonly faults: FaultPlan;
  /** Where events and interactions go from now on. */
  connectBot(botEventsUrl: string): void;
  /** Resolves when no delivery to the bot is on its way. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/**
 * Answers only requests addressed to this machine by a local name (or to the address it was told
 * to listen on): a web page on some other site that gets its domain to resolve to 127.0.0.1 (DNS
 * rebinding) must not be able to drive the sandbox. Listening on every interface opts out.
 */
function hostAllowed(hostHeader: string | undefined, bindHost: string): boolean {
  if (bindHost === '0.0.0.0' || bindHost === '::') return true;
  if (!hostHeader) return false;
  const name = (hostHeader.startsWith('[') ? hostHeader.slice(1, hostHeader.indexOf(']')) : hostHeader.replace(/:\d+$/, '')).toLowerCase();
  return LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || name === bindHost.toLowerCase();
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const log = options.logger?.child({ component: 'sandbox' });
  const store = new SandboxStore({ triggerTtlMs: options.triggerTtlMs ?? 30_000 });
  if (options.stateFile) store.restore(loadMessages(options.stateFile, log));
  const persisted = options.stateFile ? persistMessages(store, options.stateFile, log) : undefined;
  const bot = new BotLink({
    signingSecret: options.signingSecret,
    store,
    ...(options.botEventsUrl ? { url: options.botEventsUrl } : {}),
    ...(log ? { logger: log } : {}),
    ...(options.deliveryTimeoutMs ? { timeoutMs: options.deliveryTimeoutMs } : {}),
  });
  const sse = new SseHub();
  store.onChange((change) => sse.broadcast(change.kind, change));
  const files = staticFiles();

  const faults = new FaultPlan();
  // Both need the origin, known once listening; no request is answered before.
  let api: ReturnType<typeof webApiHandler> | undefined;
  let ui: ReturnType<typeof uiRoutes> | undefined;

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host, host)) return sendJson(res, 421, { ok: false, error: 'wrong_host' });
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    if (api && (await api(req, res, url))) return;
    if (url.pathname === '/events/stream' && req.method === 'GET') return sse.handle(req, res);
    if (url.pathname === '/healthz') return sendJson(res, 200, { ok: true, botConnected: bot.url !== undefined });
    if (url.pathname === '/emoji.json' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
      return void res.end(emojiTableJson());
    }
    if (ui && (await ui(req, res, url))) return;
    if (req.method === 'GET' && files(url.pathname, res)) return;
    if (options.extraRoutes && (await options.extraRoutes(req, res))) return;
    sendNotFound(res);
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      log?.error({ err: error, url: req.url }, 'sandbox request failed');
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: 'internal_error' });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // Listening on every interface includes loopback, which is the address to open here (and the
  // one the bot calls); a link to 0.0.0.0 opens nothing in some browsers.
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const origin = `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
  api = webApiHandler({ store, bot, origin, botToken: options.botToken, echoBotMessages: options.echoBotMessages ?? true, faults, ...(log ? { logger: log } : {}) });
  ui = uiRoutes({ store, bot, origin, modelLabel: options.modelLabel ?? 'unknown', examples: (options.examples ?? []).map((e) => `@${BOT.name} ${e}`), ...(log ? { logger: log } : {}) });
  log?.info({ url: origin }, 'sandbox listening');

  let stopped = false;
  return {
    url: origin,
    apiUrl: `${origin}/api/`,
    store,
    faults,
    connectBot(botEventsUrl) {
      bot.connect(botEventsUrl);
      store.notice('info', 'The bot is connected.');
    },
    idle: () => bot.drain(),
    async stop() {
      if (stopped) return;
      stopped = true;
      bot.close();
      sse.close();
      persisted?.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      server.closeAllConnections();
      await closed;
    },
  };
}
