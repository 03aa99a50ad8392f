import type { IncomingMessage, Server, ServerResponse, RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import type { App } from '@slack/bolt';
import { botMetrics } from '../../metrics/bot-metrics.js';
import type { Logger } from '../../logger.js';

/** What `BackgroundTasks` asks before it starts work: is a Slack request still waiting for its answer? */
export interface InboundRequests {
  /** Connections accepted that have not sent a request yet, plus requests not yet answered. */
  readonly pending: number;
  /** Calls `listener` each time `pending` drops to zero. */
  onIdle(listener: () => void): void;
}

/**
 * Counts what the HTTP server has taken in but not answered. A connection
 * counts from the moment it is accepted, before its bytes are read, because
 * under a burst that is the only sign that more acks are queued behind the
 * one being handled: the kernel has the requests, the event loop has not
 * read them yet.
 */
export function inboundRequests(server: Server): InboundRequests {
  let pending = 0;
  const listeners: Array<() => void> = [];
  const awaitingFirstRequest = new WeakSet<Socket>();

  const settle = () => {
    pending -= 1;
    if (pending === 0) for (const listener of listeners) listener();
  };

  server.on('connection', (socket: Socket) => {
    pending += 1;
    awaitingFirstRequest.add(socket);
    socket.once('close', () => {
      if (awaitingFirstRequest.delete(socket)) settle();
    });
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // The connection's count passes to its first request; later keep-alive requests add their own.
    if (!awaitingFirstRequest.delete(req.socket)) pending += 1;
    let answered = false;
    const done = () => {
      if (answered) return;
      answered = true;
      settle();
    };
    res.once('finish', done);
    res.once('close', done);
  });

  return {
    get pending() {
      return pending;
    },
    onIdle(listener) {
      listeners.push(listener);
    },
  };
}

/**
 * Counts and times every acknowledgement, in HTTP and Socket Mode alike: both receivers hand each
 * request to `app.processEvent` with the `ack` that answers Slack, so wrapping it there sees them
 * all, from the moment Bolt hands the request over to the moment the ack is sent.
 */
export function timeAcks(app: App): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event) => {
    const started = performance.now();
    const type = String((event.body as { type?: unknown } | undefined)?.type ?? 'unknown');
    return processEvent({
      ...event,
      ack: async (response) => {
        try {
          return await event.ack(response);
        } finally {
          botMetrics.acks.inc({ type });
          botMetrics.ackLatency.observe({ type }, (performance.now() - started) / 1000);
        }
      },
    });
  };
}

/** Slack's replay window: a signature is only good within five minutes of its timestamp. */
const MAX_SKEW_SECONDS = 5 * 60;
/** What Slack posts: events as JSON, interactivity as a `payload=` form. */
const BODY_TYPES = new Set(['application/json', 'application/x-www-form-urlencoded']);

interface Refusal {
  status: 401 | 415;
  reason: string;
  skewSeconds?: number;
}

/**
 * Sits in front of Bolt's HTTPReceiver listener and refuses requests to the events endpoint from
 * their headers alone, before Bolt reads the body: a timestamp more than five minutes off either
 * way (Bolt checks only the past, so a captured request signed for later could be replayed until
 * then), and bodies that are neither JSON nor a form (Bolt parses anything else as JSON). Requests
 * without a usable timestamp get the 401 Bolt gives them; the one exception Bolt makes, an
 * unsigned `ssl_check`, is only ever sent for slash commands, which this app has none of.
 * Other paths and methods go to Bolt untouched.
 */
export function requestGuard(
  listener: RequestListener,
  options: { endpoint: string; logger: Logger },
): RequestListener {
  return (req, res) => {
    if (!isEndpoint(req, options.endpoint)) return listener(req, res);
    const mediaType = mediaTypeOf(req);
    const refusal: Refusal | undefined =
      timestampRefusal(req, Date.now()) ?? (BODY_TYPES.has(mediaType) ? undefined : { status: 415, reason: 'unsupported content type' });
    if (refusal) {
      // Never the body or the signature: only what tells an operator why Slack (or someone) was turned away.
      options.logger.warn({ ...refusal, ...(refusal.status === 415 ? { contentType: mediaType.slice(0, 100) } : {}) }, 'Slack request refused');
      res.writeHead(refusal.status).end();
      return;
    }
    // Bolt reads a body as a form only when the header is exactly the bare media type, and as
    // JSON otherwise: a form sent with a charset would be refused as malformed JSON.
    req.headers['content-type'] = mediaType;
    listener(req, res);
  };
}

/** The same match Bolt routes by: the path without its query, any case of POST. */
function isEndpoint(req: IncomingMessage, endpoint: string): boolean {
  if (req.method?.toUpperCase() !== 'POST') return false;
  // Slack posts to the endpoint exactly as configured, which needs no parsing.
  if (req.url === endpoint) return true;
  try {
    return new URL(req.url ?? '', 'http://localhost').pathname === endpoint;
  } catch {
    // Bolt fails such a request itself.
    return false;
  }
}

function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function timestampRefusal(req: IncomingMessage, nowMs: number): Refusal | undefined {
  const header = req.headers['x-slack-request-timestamp'];
  // Slack sends whole seconds; a repeated header arrives joined with a comma and is no timestamp either.
  if (typeof header !== 'string' || !/^\d{1,12}$/.test(header)) return { status: 401, reason: 'missing or non-numeric timestamp' };
  // Whole seconds on both sides, as Bolt compares them.
  const skewSeconds = Number(header) - Math.floor(nowMs / 1000);
  if (skewSeconds > MAX_SKEW_SECONDS) return { status: 401, reason: 'timestamp in the future', skewSeconds };
  if (skewSeconds < -MAX_SKEW_SECONDS) return { status: 401, reason: 'timestamp too old', skewSeconds };
  return undefined;
}
