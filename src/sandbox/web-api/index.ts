/**
 * The sandbox's Slack Web API at /api/<method>: the bot's WebClient is pointed here with
 * SLACK_API_URL and cannot tell the difference. Answers follow Slack's conventions: HTTP 200 with
 * `{ ok: false, error }` for every refusal, `not_authed` / `invalid_auth` for tokens, and
 * `unknown_method` for a method the sandbox does not have. Nothing the bot sends can crash it: an
 * unexpected exception becomes `internal_error` and a notice on screen.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../logger.js';
import { BodyTooLargeError, readBody, sendJson } from '../http-util.js';
import { SlackApiError } from './api-error.js';
import { parseArgs, tokenOf, type Args } from './args.js';
import { chatMethods } from './chat.js';
import type { ApiContext, ApiMethod } from './context.js';
import { conversationMethods } from './conversations.js';
import { reactionMethods } from './reactions.js';
import { usergroupMethods } from './usergroups.js';
import { userMethods } from './users.js';
import { viewMethods } from './views.js';
import { errorMessage } from '../../error-message.js';

const METHODS: Record<string, ApiMethod> = {
  ...chatMethods,
  ...reactionMethods,
  ...viewMethods,
  ...usergroupMethods,
  ...userMethods,
  ...conversationMethods,
};

/** Methods Slack answers without a token. */
const PUBLIC_METHODS = new Set(['api.test']);

const SCOPES = 'app_mentions:read,channels:history,groups:history,im:history,chat:write,reactions:write,usergroups:read,users:read';
const BODY_LIMIT = 1024 * 1024;

export interface WebApiOptions {
  botToken: string;
  logger?: Logger;
}

export function webApiHandler(ctx: ApiContext, options: WebApiOptions) {
  const fail = (res: ServerResponse, error: SlackApiError) => sendJson(res, 200, { ok: false, error: error.code, ...error.extra }, { 'x-oauth-scopes': SCOPES });

  const run = (name: string, args: Args, method: ApiMethod, res: ServerResponse): void => {
    try {
      sendJson(res, 200, method(args, ctx), { 'x-oauth-scopes': SCOPES });
    } catch (error) {
      if (error instanceof SlackApiError) {
        options.logger?.debug({ method: name, error: error.code }, 'sandbox Web API refused a call');
        ctx.store.notice('warn', `${name} failed: ${error.code}${detail(error)}`);
        return fail(res, error);
      }
      options.logger?.error({ err: error, method: name }, 'sandbox Web API method threw');
      ctx.store.notice('error', `${name} hit a bug in the sandbox: ${errorMessage(error)}`);
      fail(res, new SlackApiError('internal_error'));
    }
  };

  /** `/api/<method>` requests; `/response-url/<id>` posts. */
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    let raw: string;
    try {
      raw = await readBody(req, BODY_LIMIT);
    } catch (error) {
      return fail(res, new SlackApiError(error instanceof BodyTooLargeError ? 'request_too_large' : 'invalid_request'));
    }
    let args: Args;
    try {
      args = parseArgs(raw, String(req.headers['content-type'] ?? ''), url.searchParams);
    } catch (error) {
      return fail(res, error instanceof SlackApiError ? error : new SlackApiError('invalid_request'));
    }

    if (url.pathname.startsWith('/response-url/')) {
      if (req.method !== 'POST') return fail(res, new SlackApiError('method_not_supported'));
      const id = url.pathname.slice('/response-url/'.length);
      return run('response_url', args, (a, c) => ctx.responseUrls.handle(id, a, c.store), res);
    }

    const name = decodeURIComponent(url.pathname.slice('/api/'.length));
    const method = METHODS[name];
    if (!method) return sendJson(res, 200, { ok: false, error: 'unknown_method', req_method: name });
    if (!PUBLIC_METHODS.has(name)) {
      const token = tokenOf(req.headers.authorization, args);
      if (token === undefined) return fail(res, new SlackApiError('not_authed'));
      if (token !== options.botToken) return fail(res, new SlackApiError('invalid_auth'));
    }
    run(name, args, method, res);
  };
}

function detail(error: SlackApiError): string {
  const messages = (error.extra.response_metadata as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) && messages.length > 0 ? ` (${messages.slice(0, 3).join('; ')})` : '';
}
