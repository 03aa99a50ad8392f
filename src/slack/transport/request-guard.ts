import type { IncomingMessage, RequestListener } from 'node:http';
import type { Logger } from '../../logger.js';

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
