/** Delivering signed requests to a bot's HTTP endpoint (Bolt's HTTPReceiver), as Slack does. */
import { inferContentType, signRequest, type ContentType } from './sign.js';
import { slashCommandBody, type SlashCommandOptions } from './slash-command.js';

/** Interactivity wire format: one form field holding the JSON payload. */
export function formBody(payload: unknown): string {
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

interface SendSignedOptions {
  secret: string;
  /** A raw string is sent untouched; an object is serialised as JSON or `payload=` per `contentType`. */
  body: string | object;
  /** 'json' | 'form' or a full MIME type; inferred from the body when omitted. */
  contentType?: 'json' | 'form' | ContentType;
  timestamp?: number | string;
  /** Slack's redelivery markers; set these to replay a delivery as a retry. */
  retryNum?: number;
  retryReason?: string;
  /** Applied after signing, so they can override the signature or timestamp for negative tests. */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface SignedResponse {
  status: number;
  /** Raw response text. */
  body: string;
  /** Parsed body when it was JSON, otherwise undefined. */
  json: unknown;
  headers: Record<string, string>;
  elapsedMs: number;
  /** Exactly what was sent, for replaying the same delivery as a retry. */
  sent: { rawBody: string; headers: Record<string, string> };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (!LOOPBACK_HOSTS.has(host)) {
    throw new Error(`sendSigned only talks to loopback in tests; refused ${url}`);
  }
}

function resolveContentType(body: string | object, hint: SendSignedOptions['contentType']): ContentType {
  if (hint === 'json') return 'application/json';
  if (hint === 'form') return 'application/x-www-form-urlencoded';
  if (hint) return hint;
  return typeof body === 'string' ? inferContentType(body) : 'application/json';
}

/** POST a signed request to the bot's endpoint, timing how long the bot takes to acknowledge. */
export async function sendSigned(url: string, options: SendSignedOptions): Promise<SignedResponse> {
  assertLoopback(url);
  const contentType = resolveContentType(options.body, options.contentType);
  const rawBody =
    typeof options.body === 'string'
      ? options.body
      : contentType === 'application/json'
        ? JSON.stringify(options.body)
        : formBody(options.body);
  const signed = signRequest(options.secret, rawBody, options.timestamp);
  const headers: Record<string, string> = { ...signed, 'content-type': contentType };
  if (options.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(options.retryNum);
    headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
  }
  Object.assign(headers, options.headers);

  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: rawBody,
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    body: text,
    json,
    headers: Object.fromEntries(response.headers.entries()),
    elapsedMs,
    sent: { rawBody, headers },
  };
}

/** Binds the endpoint and secret so end-to-end tests read as "Slack delivers X". */
export function slackSender(url: string, secret: string) {
  return {
    url,
    secret,
    event: (envelope: object, extra: Omit<SendSignedOptions, 'secret' | 'body'> = {}) =>
      sendSigned(url, { secret, body: envelope, contentType: 'json', ...extra }),
    interaction: (payload: object, extra: Omit<SendSignedOptions, 'secret' | 'body'> = {}) =>
      sendSigned(url, { secret, body: formBody(payload), contentType: 'form', ...extra }),
    /** A slash command, as the flat form Slack posts (see slash-command.ts). */
    command: (options: SlashCommandOptions, extra: Omit<SendSignedOptions, 'secret' | 'body'> = {}) =>
      sendSigned(url, { secret, body: slashCommandBody(options), contentType: 'form', ...extra }),
    raw: (body: string, extra: Omit<SendSignedOptions, 'secret' | 'body'> = {}) =>
      sendSigned(url, { secret, body, ...extra }),
  };
}
