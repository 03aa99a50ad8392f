/**
 * Slack's Web API wire format, shared by the simulator and the sandbox: `/api/<method>` with a
 * form or JSON body (or query string), the token as a Bearer header or `token` argument, HTTP
 * 200 `{ ok: false, error }` for every refusal, `unknown_method`, and the planned faults (429
 * with Retry-After, 5xx, `ok: false`, delays, held or dropped answers). What each method does is
 * the caller's: a table of handlers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SlackApiError } from './api-error.js';
import type { FaultPlan } from './fault-plan.js';
import { clone } from './json.js';
import type { RecordedCall, SlackArgs } from './types.js';
import { parseWireArgs, tokenOf } from './wire-args.js';

export type Handler = (args: SlackArgs, ctx: { token: string }) => Record<string, unknown>;

const PUBLIC_METHODS: ReadonlySet<string> = new Set(['api.test']);

/** A 1 MB request is far beyond any message Slack accepts; larger ones are not read. */
const BODY_LIMIT = 1024 * 1024;

export interface WebApiEndpointOptions {
  methods: Record<string, Handler>;
  /** Whether a bot/user token is one this workspace issued. */
  acceptsToken(token: string): boolean;
  /** Reported in x-oauth-scopes, as Slack does on every answer. */
  scopes: string;
  faults: FaultPlan;
  /** Every call, after its effects and before its answer is sent. */
  record?(call: RecordedCall): void;
  /** Methods Slack answers without a token; default api.test, as on Slack. */
  publicMethods?: ReadonlySet<string>;
  /** Path prefix of response URLs, and what a post to one does. */
  responseUrls?: { prefix: string; handle(path: string, args: SlackArgs): Record<string, unknown> };
  /** Calls made with an app-level (xapp-) token, e.g. apps.connections.open for Socket Mode. */
  appLevelCall?(method: string, token: string): Record<string, unknown>;
  /** A method refused the call (SlackApiError), for the sandbox's on-screen notices. */
  onRefused?(method: string, error: SlackApiError): void;
  /**
   * A method threw something else: a bug. Without this hook the answer is HTTP 500 with the
   * stack (tests see it at once); with it, whatever error code the hook returns.
   */
  onCrash?(method: string, error: unknown): string;
}

/** Handles one request whose path is under `/api/` or the response URL prefix; false for any other path. */
export function webApiEndpoint(options: WebApiEndpointOptions): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> {
  const { methods, faults, scopes } = options;
  const publicMethods = options.publicMethods ?? PUBLIC_METHODS;

  function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-oauth-scopes': scopes, ...headers });
    res.end(body);
  }

  async function readBody(req: IncomingMessage): Promise<string | undefined> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > BODY_LIMIT) return undefined;
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  function answer(method: string, args: SlackArgs, token: string | undefined, path: string, isResponseUrl: boolean): Record<string, unknown> {
    if (isResponseUrl) return options.responseUrls!.handle(path, args);
    const handler = methods[method];
    if (token === undefined) {
      if (handler && publicMethods.has(method)) return handler(args, { token: '' });
      return { ok: false, error: 'not_authed' };
    }
    if (token.startsWith('xapp-') || (method === 'apps.connections.open' && options.appLevelCall)) {
      return options.appLevelCall ? options.appLevelCall(method, token) : { ok: false, error: 'not_allowed_token_type' };
    }
    if (!options.acceptsToken(token)) return { ok: false, error: 'invalid_auth' };
    return handler ? handler(args, { token }) : { ok: false, error: 'unknown_method', req_method: method };
  }

  return async (req, res, url) => {
    const at = Date.now();
    const isApi = url.pathname.startsWith('/api/');
    const isResponseUrl = options.responseUrls !== undefined && url.pathname.startsWith(options.responseUrls.prefix);
    if (!isApi && !isResponseUrl) return false;
    const method = isApi ? decodeURIComponent(url.pathname.slice('/api/'.length)) : 'response_url';

    let args: SlackArgs = {};
    let token: string | undefined;
    let status = 200;
    let response: Record<string, unknown> | undefined;
    let rawResponse: string | undefined;
    let headers: Record<string, string> = {};
    const planned = faults.next(method);
    try {
      const raw = await readBody(req);
      if (raw === undefined) throw new SlackApiError('request_too_large');
      if (isResponseUrl && req.method !== 'POST') throw new SlackApiError('method_not_supported');
      args = parseWireArgs(raw, String(req.headers['content-type'] ?? ''), url.searchParams);
      token = isApi ? tokenOf(req.headers.authorization, args) : undefined;
      delete args.token;

      if (planned.delayMs !== undefined) await new Promise((r) => setTimeout(r, planned.delayMs));

      const fault = planned.fault;
      if (fault && 'status' in fault) {
        status = fault.status;
        if (fault.status === 429 || fault.retryAfter !== undefined) headers = { 'retry-after': String(fault.retryAfter ?? 1) };
        if (fault.status === 429) response = { ok: false, error: 'ratelimited' };
        else rawResponse = 'body' in fault && fault.body !== undefined ? fault.body : `Slack simulator: injected HTTP ${fault.status}`;
      } else if (fault) {
        response = { ok: false, error: fault.error };
      } else {
        response = answer(method, args, token, url.pathname, isResponseUrl);
      }
    } catch (err) {
      if (err instanceof SlackApiError) {
        options.onRefused?.(method, err);
        response = { ok: false, error: err.code, ...err.extra };
      } else if (options.onCrash) {
        response = { ok: false, error: options.onCrash(method, err) };
      } else {
        status = 500;
        rawResponse = `Slack simulator crashed: ${err instanceof Error ? err.stack : String(err)}`;
      }
    }

    // State is updated before the call is announced, so whoever waits for the call sees it.
    options.record?.({
      method,
      args,
      at,
      token,
      status,
      response: response ? clone(response) : undefined,
      ok: response?.ok === true,
      error: typeof response?.error === 'string' ? response.error : undefined,
      path: url.pathname,
    });
    const held = faults.hold(method);
    if (held) await held;
    if (planned.drop) {
      res.socket?.destroy();
      return true;
    }
    if (rawResponse !== undefined) {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
      res.end(rawResponse);
    } else {
      send(res, status, JSON.stringify(response), headers);
    }
    return true;
  };
}
