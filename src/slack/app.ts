import { AssistantSupport, type AssistantMode, clearWorkingReaction, DEFAULT_WORKING_REACTION_DELAY_MS } from './thread/assistant-status.js';
import type { RequestListener, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, SocketModeReceiver, type CustomRoute, type webApi } from '@slack/bolt';
import type { Agent } from '../agent/agent.js';
import { startSweeping } from '../agent/sweeps.js';
import { showDueNotices } from './routing/send-due-notices.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { BackgroundTasks } from './transport/background-tasks.js';
import { boltLogger, slackClientOptions, slackUserTeams } from './transport/slack-web-client.js';
import { SweepBacklog, type BacklogSwept } from './sweep.js';
import { PacedWebClient } from './transport/paced-web-client.js';
import { inboundRequests, timeAcks, requestGuard } from './transport/inbound-requests.js';
import { showRememberedCreated, showRememberedUse } from './remembered/remembered-actions.js';
import { answerFromText, mayAnswer, resumeFromSlack } from './answer/resume-from-slack.js';
import { formOfZod } from './kit/form-fields.js';
import { openDecline, recordApproval, showApproval, checkedBeforeModal } from './approval/approval-flow.js';
import { CardLifecycle } from './card/lifecycle.js';
import { postBatchCard, redrawBatch } from './batch/post-batch.js';
import { showDecision, showQuorumProgress } from './approval/show-decision.js';
import { routeCard, routeEditedCard } from './routing/card-copies.js';
import { listClickOf, showInboxList, showHome, homeViewersAmong, recordHomeViewer, HomeRefresher } from './inbox/home-refresher.js';
import { goOnAfterAnswer, runInThread } from './thread/run-in-thread.js';
import type { SlackContext } from './context.js';
import { slackDb } from './context.js';
import { registerListeners } from './listeners.js';
import { pruneEvents } from './thread/claim-event.js';
import { claimUnpostedCards, claimStaleCards } from './card/card-repairs.js';
import { showUnpostedCard } from './card/show-card.js';
import { claimKeptResults, showKeptResult } from './thread/kept-results.js';
import { botMetrics } from '../metrics/bot-metrics.js';

interface SlackAppOptions {
  /** `host`: the interface to listen on in HTTP mode; every interface when unset. */
  config: Config['slack'] & { port: number; host?: string };
  agent: Agent;
  db: Db;
  logger: Logger;
  /** Normally learned from auth.test at start. */
  botUserId?: string;
  /** Web API retries for rate limits (after Retry-After) and 5xx; the default gives up after about 15 s. */
  retryConfig?: webApi.RetryOptions;
  /**
   * How often the sweep runs (default 30 s): expired requests, runs whose instance stopped, and
   * cards and answers to repair. 0 turns the timer off.
   */
  sweepIntervalMs?: number;
  /**
   * How long a card may stay unposted or out of date, or an answer unshown, before the sweep
   * repairs it (default one minute): well past the Web API's retries (about 15 s), so what is
   * still being posted is never posted twice.
   */
  cardRepairAfterMs?: number;
  /**
   * Socket Mode: how long the client goes without a pong before it drops the connection, and waits
   * before reconnecting after one closed (times the failed attempts in a row). @slack/socket-mode's
   * default, 5 s, when unset.
   */
  socketPingTimeoutMs?: number;
  /** Largest request body accepted, in bytes; Slack's own payloads are far smaller. */
  bodyLimit?: number;
  /**
   * HTTP mode: start() listens on `config.port` (the default), or, with false, opens no server and
   * leaves `handler` to a server of the caller's.
   */
  listen?: boolean;
  /** More HTTP routes on the same server (HTTP mode only), e.g. a health check or an admin listing. */
  customRoutes?: CustomRoute[];
  /**
   * HTTP mode: longest that work handed off after an ack waits for the other requests already
   * received to be answered (default 50 ms); see BackgroundTasks.
   */
  ackFirstMaxHoldMs?: number;
  /**
   * How long a run works before its message gets the 👀 reaction (default 300 ms, so the signal
   * still shows within a second); a run answered sooner needs none. 0 adds it at once.
   */
  workingReactionDelayMs?: number;
  /**
   * Home tab updates: changes within `debounceMs` (default 1 s) make one views.publish per
   * person, spaced at least `minIntervalMs` apart (default 650 ms, under Tier 4's ~100 a minute).
   */
  homeRefresh?: { debounceMs?: number; minIntervalMs?: number };
  /**
   * Slack's AI-app conventions (SLACK_ASSISTANT): `auto` in threads of DMs with the app, `on` in
   * every thread, `off` (the default) never. A status while a run waits for approval, and the
   * answer streamed; any refusal falls back to the reaction and posted messages.
   */
  assistant?: AssistantMode;
}

export interface SlackApp {
  readonly app: App;
  readonly context: SlackContext;
  /**
   * HTTP mode: the request listener for POST /slack/events (signature, timestamp and body checks
   * included), for hosting the bot in a server of one's own; usable once start() resolved.
   */
  readonly handler?: RequestListener;
  /** Verifies the token (auth.test) and starts listening; `port` is set in HTTP mode. */
  start(): Promise<{ port?: number; botUserId: string }>;
  /** Stops taking requests, then waits for work already acknowledged to finish. */
  stop(): Promise<void>;
  /**
   * Runs one sweep now: expired requests and runs whose instance stopped mid-way (batch after
   * batch while they come back full), and cards, notices and answers to repair; returns how many
   * requests expired. What it found is shown in Slack at Slack's pace (see SweepBacklog): idle()
   * waits for it.
   */
  sweepExpired(): Promise<number>;
  /** Resolves when nothing handed off after an ack is still running. */
  idle(): Promise<void>;
}

const ONE_MEBIBYTE = 1024 * 1024;
const EVENTS_ENDPOINT = '/slack/events';
/** Slack stops waiting for an answer after 3 s, so a request still unanswered at stop gets that long and no longer. */
const STOP_GRACE_MS = 3_000;
/** How often a stopping server closes keep-alive connections whose request has been answered. */
const STOP_IDLE_SWEEP_MS = 25;
/** Longer than the idle timeout of common load balancers (60 s), so they are the side that closes. */
const KEEP_ALIVE_MS = 65_000;

/**
 * The Slack front end: Bolt in HTTP mode at POST /slack/events (events and
 * interactivity, signatures verified by Bolt, timestamps and body types checked
 * by requestGuard before Bolt reads a byte), or Socket Mode when an app
 * token is configured. Every listener acknowledges first and hands the rest
 * to background tasks, so Slack's 3-second deadline never waits on a model;
 * in HTTP mode those tasks also wait for requests already received to be
 * answered, so a burst of clicks is acknowledged before its work begins.
 */
export function createSlackApp(options: SlackAppOptions): SlackApp {
  const { config, agent, logger } = options;
  if (!config.botToken) throw new Error('SLACK_BOT_TOKEN is required to start the Slack app');
  const log = logger.child({ component: 'slack' });
  const boltLog = boltLogger(log);
  const clientOptions = slackClientOptions(config, logger, options.retryConfig);

  // Bolt's conversation store keeps per-conversation state in memory; runs live in Postgres, so it is only overhead.
  const appOptions = { token: config.botToken, clientOptions, logger: boltLog, deferInitialization: true, convoStore: false } as const;
  let receiver: HTTPReceiver | undefined;
  let app: App;
  if (config.appToken) {
    // The receiver App would make for socketMode (its Web API calls with the app's options and
    // logger), made here to pass the ping timeout on.
    const socketClientOptions: webApi.WebClientOptions = { ...clientOptions, logger: boltLog };
    const socket = new SocketModeReceiver({
      appToken: config.appToken,
      logger: boltLog,
      installerOptions: { clientOptions: socketClientOptions },
      ...(options.socketPingTimeoutMs !== undefined ? { clientPingTimeout: options.socketPingTimeoutMs } : {}),
    });
    app = new App({ ...appOptions, appToken: config.appToken, socketMode: true, receiver: socket });
  } else {
    if (!config.signingSecret) throw new Error('SLACK_SIGNING_SECRET is required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)');
    receiver = new HTTPReceiver({
      signingSecret: config.signingSecret,
      endpoints: EVENTS_ENDPOINT,
      // Ack is sent as soon as a listener calls it; the work continues after the response.
      processBeforeResponse: false,
      logger: boltLog,
      bodyLimit: options.bodyLimit ?? ONE_MEBIBYTE,
      customRoutes: [
        // A host that brings its own health routes (the bot's main does) replaces this one.
        ...(options.customRoutes?.some((r) => r.path === '/healthz')
          ? []
          : [{ path: '/healthz', method: ['GET'], handler: (_req: unknown, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok') }]),
        ...(options.customRoutes ?? []),
      ],
    });
    // Bolt's server calls this property for every request, so the guard sees each one first.
    receiver.requestListener = requestGuard(receiver.requestListener, { endpoint: EVENTS_ENDPOINT, logger: log });
    app = new App({ ...appOptions, receiver });
  }

  timeAcks(app);
  const tasks = new BackgroundTasks(log, options.ackFirstMaxHoldMs);
  const repairAfterMs = options.cardRepairAfterMs ?? 60_000;
  // Answers are kept until shown here, so a stop between a run's end and its answer loses nothing.
  agent.keepResults();
  // Publishes through `context`, which exists by the time anything is published.
  const home = new HomeRefresher({
    publish: (user, notice) => showHome(context, user, notice),
    recordViewer: (user) => recordHomeViewer(context.slackDb, user),
    viewersAmong: (users) => homeViewersAmong(context.slackDb, users),
    logger: log,
    ...options.homeRefresh,
  });
  const context: SlackContext = {
    home,
    agent,
    slackDb: slackDb(options.db),
    logger: log,
    client: app.client,
    tasks,
    cards: new CardLifecycle(),
    publicChannels: new Map(),
    userTeams: slackUserTeams(app.client, log),
    showRememberedUse: (target, call) => showRememberedUse(context, target, call),
    showRememberedCreated: (target, decision) => showRememberedCreated(context, target, decision),
    batches: { post: postBatchCard, redraw: redrawBatch },
    runs: { show: runInThread, clearWorkingReaction },
    routeCard,
    workingReactionDelayMs: options.workingReactionDelayMs ?? DEFAULT_WORKING_REACTION_DELAY_MS,
    ...assistantOf(options.assistant ?? config.assistant),
    ...(options.botUserId ? { botUserId: options.botUserId } : {}),
  };

  app.error(async (error) => {
    log.error({ err: error }, 'Slack listener failed');
  });
  // What one feature does for another is wired here, so that no feature imports another.
  registerListeners(app, context, {
    answers: {
      answerFromText,
      mayAnswer,
      resumeFromSlack: (ctx, action, data, who, options) => resumeFromSlack(ctx, action, data, who, goOnAfterAnswer, options),
      hasRespondForm: (schema) => formOfZod(schema) !== undefined,
    },
    goOn: goOnAfterAnswer,
    batch: { showQuorumProgress, runInThread },
    edit: {
      checkedBeforeModal: (ctx, click, action) => checkedBeforeModal(ctx, click, action, { as: 'edit' }),
      showDecision,
      routeEdited: routeEditedCard,
    },
    inboxDecisions: { recordApproval, showApproval, openDecline },
    remembered: { redrawList: (ctx, body, listValue) => showInboxList(ctx, listClickOf(body, listValue)) },
  });

  const sweepExpired = async (repairs = true): Promise<BacklogSwept> => {
    try {
      const swept = await sweepOnce(repairs);
      botMetrics.sweeps.inc({ result: 'ok' });
      return swept;
    } catch (error) {
      botMetrics.sweeps.inc({ result: 'failed' });
      throw error;
    }
  };
  // Expired requests, runs taken over and stale cards come in thousands at once: they go at Slack's pace, on a client of their own.
  const backlog = new SweepBacklog(context, new PacedWebClient(config.botToken, clientOptions, app.client));
  /** `repairs`: also cards, notices and answers to repair, which a sweep that follows at once to drain a backlog leaves to the interval. */
  const sweepOnce = async (repairs: boolean): Promise<BacklogSwept> => {
    const swept = await backlog.sweep();
    const found: Record<string, number> = { expired: swept.expired, recovered: swept.recovered };
    if (repairs) {
      const unposted = await claimUnpostedCards(context.slackDb, agent.id, repairAfterMs);
      for (const actionId of unposted) tasks.run('unposted card', () => showUnpostedCard(context, actionId));
      const stale = await claimStaleCards(context.slackDb, agent.id, repairAfterMs);
      backlog.redraw(stale);
      await showDueNotices(context, repairAfterMs).catch((error: unknown) => log.warn({ err: error }, 'approval notices failed'));
      const kept = await claimKeptResults(context.slackDb, agent.id, repairAfterMs);
      for (const result of kept) tasks.run('kept answer', () => showKeptResult(context, result));
      Object.assign(found, { unposted_card: unposted.length, stale_card: stale.length, kept_answer: kept.length });
      await pruneEvents(context.slackDb).catch((error: unknown) => log.warn({ err: error }, 'pruning old event ids failed'));
    }
    for (const [kind, count] of Object.entries(found)) if (count > 0) botMetrics.sweptItems.inc({ kind }, count);
    return swept;
  };

  let sweeper: { stop(): void } | undefined;
  let server: Server | undefined;
  let started = false;
  return {
    app,
    context,
    ...(receiver ? { handler: hostedHandler(receiver, log) } : {}),
    async start() {
      await app.init();
      const auth = await app.client.auth.test();
      const botUserId = options.botUserId ?? auth.user_id;
      if (!botUserId) throw new Error('auth.test did not return the bot user id');
      context.botUserId = botUserId;
      if (typeof auth.url === 'string') context.teamUrl = auth.url;
      if (typeof auth.team_id !== 'string' || auth.team_id === '') throw new Error('auth.test did not return the workspace\'s team id');
      context.teamId = auth.team_id;
      // From here on the runtime refuses people of other workspaces (Slack Connect) in every decision and answer.
      agent.serveWorkspace({ teamId: auth.team_id, ...(typeof auth.enterprise_id === 'string' && auth.enterprise_id !== '' ? { enterpriseId: auth.enterprise_id } : {}) });
      let port: number | undefined;
      if (receiver && options.listen === false) {
        // The caller's own server hands requests to `handler`.
      } else if (receiver) {
        server = (await app.start(config.host ? { port: config.port, host: config.host } : config.port)) as Server;
        // A load balancer keeps idle connections to the bot open for 60 s (AWS's default) and
        // reuses them; Node closes them after 5 s, and a request sent as one closes is lost (the
        // balancer answers 502, Slack sees a failed delivery). So the bot keeps them longer.
        server.keepAliveTimeout = KEEP_ALIVE_MS;
        server.headersTimeout = KEEP_ALIVE_MS + 1000;
        port = (server.address() as AddressInfo).port;
        tasks.ackFirst(inboundRequests(server));
      } else {
        await app.start();
      }
      started = true;
      const intervalMs = options.sweepIntervalMs ?? 30_000;
      if (intervalMs > 0) {
        let repairedAt = -Infinity;
        sweeper = startSweeping(
          () => {
            const repairs = performance.now() - repairedAt >= intervalMs;
            if (repairs) repairedAt = performance.now();
            return sweepExpired(repairs);
          },
          { intervalMs, onError: (error) => log.warn({ err: error }, 'expiry sweep failed') },
        );
      }
      log.info({ mode: receiver ? 'http' : 'socket', port, botUserId }, 'Slack app started');
      return { ...(port !== undefined ? { port } : {}), botUserId };
    },
    async stop() {
      sweeper?.stop();
      backlog.stop();
      home.stop();
      if (started) {
        started = false;
        // Without a server of its own there is nothing of Bolt's to stop: the caller's server takes no more requests.
        const stopping = receiver && options.listen === false ? Promise.resolve() : app.stop();
        // Idle keep-alive sockets would hold close() open until their timeout, and Node closes only those idle at
        // the moment close() is called: a connection whose request (a click being recorded) is answered later
        // is closed once it is, so the request gets its ack and the server closes as soon as all are answered.
        server?.closeIdleConnections();
        const idleSweep = setInterval(() => server?.closeIdleConnections(), STOP_IDLE_SWEEP_MS);
        const force = setTimeout(() => server?.closeAllConnections(), STOP_GRACE_MS);
        force.unref();
        await stopping.finally(() => {
          clearTimeout(force);
          clearInterval(idleSweep);
        });
      }
      await tasks.drain();
    },
    sweepExpired: async () => (await sweepExpired()).expired,
    async idle() {
      // A task may hand the backlog more (a redraw), and the backlog starts tasks.
      while (tasks.size > 0 || !backlog.isIdle) await Promise.all([tasks.drain(), backlog.idle()]);
    },
  };
}

/**
 * The receiver's listener for a server of the caller's: wherever it is mounted, the request is
 * Slack's (Bolt routes by path, so it gets the endpoint's), and what Bolt's own server would
 * answer for a request it does not handle (404) or that fails (500) is answered here too.
 */
function hostedHandler(receiver: HTTPReceiver, log: Logger): RequestListener {
  return (req, res) => {
    req.url = EVENTS_ENDPOINT;
    try {
      receiver.requestListener(req, res);
    } catch (error) {
      const deferred = (error as { code?: string }).code === 'slack_bolt_http_receiver_deferred_request_error';
      if (!deferred) log.error({ err: error }, 'Slack request failed');
      if (!res.headersSent) res.writeHead(deferred ? 404 : 500);
      res.end();
    }
  };
}

function assistantOf(mode: AssistantMode | undefined): { assistant?: AssistantSupport } {
  return mode && mode !== 'off' ? { assistant: new AssistantSupport(mode) } : {};
}
