/**
 * A stand-in for the bot's /slack/events endpoint: it checks each request's v0 signature with
 * its own implementation of Slack's algorithm (not the sandbox's), records what arrived, and
 * answers what the test tells it to.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webApi } from '@slack/bolt';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../src/sandbox/start-sandbox.js';

const SECRET = 'sandbox-test-secret-7f3a';
export const TOKEN = 'xoxb-sandbox-test-token';

export interface Received {
  contentType: string;
  rawBody: string;
  signatureValid: boolean;
  timestamp: string;
  /** The event envelope (JSON) or the interaction payload (`payload=` form), parsed. */
  body: any;
  kind: 'event' | 'interaction';
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The answer to the next requests: status and body (JSON-encoded when an object). */
  respondWith(fn: (r: Received) => { status?: number; body?: unknown } | undefined): void;
  waitFor(predicate: (r: Received) => boolean, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
}

function v0Valid(secret: string, req: IncomingMessage, rawBody: string): boolean {
  const timestamp = String(req.headers['x-slack-request-timestamp'] ?? '');
  const signature = String(req.headers['x-slack-signature'] ?? '');
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`);
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

async function startReceiver(secret = SECRET): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  let responder: (r: Received) => { status?: number; body?: unknown } | undefined = () => undefined;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const contentType = String(req.headers['content-type'] ?? '');
    const kind = contentType.includes('application/json') ? 'event' : 'interaction';
    const body = kind === 'event' ? JSON.parse(rawBody) : JSON.parse(new URLSearchParams(rawBody).get('payload') ?? 'null');
    const r: Received = {
      contentType,
      rawBody,
      signatureValid: v0Valid(secret, req, rawBody),
      timestamp: String(req.headers['x-slack-request-timestamp']),
      body,
      kind,
    };
    received.push(r);
    waiters.splice(0).forEach((w) => w());
    const answer = r.signatureValid ? responder(r) : { status: 401 };
    const status = answer?.status ?? 200;
    const payload = answer?.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(status, payload.startsWith('{') ? { 'content-type': 'application/json' } : {});
    res.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/slack/events`,
    received,
    respondWith(fn) {
      responder = fn;
    },
    waitFor(predicate, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`nothing matching arrived within ${timeoutMs} ms; got ${received.length} requests`)), timeoutMs);
        const check = () => {
          const hit = received.find(predicate);
          if (hit) {
            clearTimeout(timer);
            resolve(hit);
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** WebClient logs every refused call; the tests refuse calls on purpose. */
export const quietLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => webApi.LogLevel.ERROR,
  setName() {},
};

export interface Harness {
  sandbox: Sandbox;
  receiver: Receiver;
  client: webApi.WebClient;
  ui(path: string, body: unknown): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

/** A sandbox wired to a receiver, and a WebClient playing the bot. */
export async function startHarness(options: Partial<SandboxOptions> = {}): Promise<Harness> {
  const receiver = await startReceiver();
  const sandbox = await startSandbox({ port: 0, signingSecret: SECRET, botToken: TOKEN, botEventsUrl: receiver.url, ...options });
  const client = new webApi.WebClient(TOKEN, { slackApiUrl: sandbox.apiUrl, retryConfig: { retries: 0 }, logger: quietLogger });
  return {
    sandbox,
    receiver,
    client,
    async ui(path, body) {
      const response = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, json: await response.json() };
    },
    async close() {
      await sandbox.stop();
      await receiver.close();
    },
  };
}

/** The Slack error code a WebClient call failed with. */
export async function slackError(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return (error as { data?: { error?: string } }).data?.error ?? `threw: ${String(error)}`;
  }
  return 'no error';
}
