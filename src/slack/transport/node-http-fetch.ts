import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { webApi } from '@slack/bolt';

type FetchFunction = webApi.FetchFunction;
type FetchResponse = Awaited<ReturnType<FetchFunction>>;
type FetchRequestInit = NonNullable<Parameters<FetchFunction>[1]>;

interface NodeHttpFetchOptions {
  /** A call with no response (headers and body) within this long fails, and the WebClient's retries take over. */
  timeoutMs?: number;
  /** Idle keep-alive connections are closed after this long, before a server would drop them under us. */
  idleSocketMs?: number;
}

/** undici's fetch gives up on a silent server after 300 s; Slack answers in seconds, so a minute is already generous. */
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_IDLE_SOCKET_MS = 4_000;

/** Thrown where fetch would reject with a TypeError (network failure, redirect refused); the WebClient retries it. */
export class NodeHttpFetchError extends TypeError {
  readonly code: 'redirect' | 'timeout' | 'aborted';
  constructor(code: NodeHttpFetchError['code'], message: string) {
    super(message);
    this.name = 'NodeHttpFetchError';
    this.code = code;
  }
}

/**
 * The Web API client's transport: node:http(s) with keep-alive agents, in place of
 * the default global fetch. The WebClient only needs the small `FetchFunction`
 * contract; undici's full fetch (streams, Request/Response/Headers objects, abort
 * plumbing) cost more CPU per call than the bot spends building the card it posts.
 * Bodies other than strings (file uploads as FormData) go through the global fetch.
 */
export function nodeHttpFetch(options: NodeHttpFetchOptions = {}): FetchFunction {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const idle = options.idleSocketMs ?? DEFAULT_IDLE_SOCKET_MS;
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, timeout: idle, scheduling: 'lifo' }),
    'https:': new HttpsAgent({ keepAlive: true, timeout: idle, scheduling: 'lifo' }),
  };
  return (input, init = {}) => {
    const body = init.body;
    if (body !== undefined && typeof body !== 'string') return globalThis.fetch(input, init as RequestInit);
    const url = typeof input === 'string' ? new URL(input) : input;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return Promise.reject(new TypeError(`unsupported protocol in ${url.protocol}//${url.host}`));
    }
    return send(url, init, body, url.protocol === 'https:' ? agents['https:'] : agents['http:'], timeoutMs);
  };
}

function send(url: URL, init: FetchRequestInit, body: string | undefined, agent: HttpAgent, timeoutMs: number): Promise<FetchResponse> {
  return new Promise<FetchResponse>((resolve, reject) => {
    const { signal } = init;
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const headers: Record<string, string> = { ...init.headers };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const make = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      req.destroy();
      reject(error);
    };
    const onAbort = () => fail(abortReason(signal!));
    const timer = setTimeout(() => fail(new NodeHttpFetchError('timeout', `no response from ${url.host} within ${timeoutMs} ms`)), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    signal?.addEventListener('abort', onAbort, { once: true });

    const req = make(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location !== undefined && init.redirect !== 'manual') {
        res.resume();
        // fetch's redirect: 'error' (what the WebClient asks for); following one is not needed for Slack's API.
        fail(new NodeHttpFetchError('redirect', `${url.host} answered ${status} with a redirect, which is refused`));
        return;
      }
      readBody(res).then(
        (bytes) => {
          if (settled) return;
          settled = true;
          cleanup();
          resolve(new NodeHttpResponse(url, res, status, bytes));
        },
        (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
      );
    });
    req.on('error', fail);
    req.end(body);
  });
}

function readBody(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    res.on('error', reject);
    // A connection dropped mid-body ends the response without 'end' (and, on some versions, without 'error').
    res.on('close', () => {
      if (!res.complete) reject(new Error('the response was cut off'));
    });
  });
}

/**
 * The response as the WebClient reads it (status, a few headers, the body as text). A class:
 * its methods are shared by every response instead of made (five closures) for each.
 */
class NodeHttpResponse {
  readonly ok: boolean;
  readonly statusText: string;
  readonly url: string;
  readonly headers: ResponseHeaders;

  constructor(
    url: URL,
    res: IncomingMessage,
    readonly status: number,
    private readonly bytes: Buffer,
  ) {
    this.ok = status >= 200 && status < 300;
    this.statusText = res.statusMessage ?? '';
    this.url = url.href;
    this.headers = new ResponseHeaders(res.headers);
  }

  async text(): Promise<string> {
    return this.bytes.toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.bytes.toString('utf8')) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.bytes;
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
}

/** As fetch's Headers, for reading: absent → null, repeated → joined with ", ". */
class ResponseHeaders {
  constructor(private readonly headers: IncomingHttpHeaders) {}

  get(name: string): string | null {
    return headerValue(this.headers, name.toLowerCase());
  }

  entries(): Array<[string, string]> {
    return Object.keys(this.headers).map((name): [string, string] => [name, headerValue(this.headers, name) ?? '']);
  }
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new NodeHttpFetchError('aborted', 'the request was aborted');
}
