/**
 * The sandbox's Slack Web API at /api/<method>: the bot's WebClient is pointed here with
 * SLACK_API_URL and cannot tell the difference. The wire format, tokens, Slack-style errors and
 * fault injection are the Slack simulator's (src/simulator/web-api-endpoint.ts); the methods
 * here act on the sandbox's workspace and store. Nothing the bot sends can crash it: an
 * unexpected exception becomes `internal_error` and a notice on screen.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../../error-message.js';
import type { Logger } from '../../logger.js';
import { FaultPlan, SlackApiError, webApiEndpoint, type Handler } from '../../simulator/index.js';
import { chatMethods } from './chat.js';
import type { ApiContext, ApiMethod } from './context.js';
import { conversationMethods } from './conversations.js';
import { reactionMethods } from './reactions.js';
import { usergroupMethods } from './usergroups.js';
import { userMethods } from './users.js';
import { viewMethods } from './views.js';

const METHODS: Record<string, ApiMethod> = {
  ...chatMethods,
  ...reactionMethods,
  ...viewMethods,
  ...usergroupMethods,
  ...userMethods,
  ...conversationMethods,
};

const SCOPES = 'app_mentions:read,channels:history,groups:history,groups:read,im:history,chat:write,commands,reactions:write,usergroups:read,users:read';

export interface WebApiOptions {
  botToken: string;
  /** Faults to inject into the bot's calls (429s, 5xx, delays); none unless planned. */
  faults?: FaultPlan;
  logger?: Logger;
}

export function webApiHandler(ctx: ApiContext, options: WebApiOptions) {
  const methods: Record<string, Handler> = {};
  for (const [name, method] of Object.entries(METHODS)) methods[name] = (args) => method(args, ctx);
  const endpoint = webApiEndpoint({
    methods,
    acceptsToken: (token) => token === options.botToken,
    scopes: SCOPES,
    faults: options.faults ?? new FaultPlan(),
    publicMethods: new Set(['api.test']),
    responseUrls: { prefix: '/response-url/', handle: (path, args) => ctx.responseUrls.handle(path.slice('/response-url/'.length), args, ctx.store) },
    onRefused: (name, error) => {
      options.logger?.debug({ method: name, error: error.code }, 'sandbox Web API refused a call');
      ctx.store.notice('warn', `${name} failed: ${error.code}${detail(error)}`);
    },
    onCrash: (name, error) => {
      options.logger?.error({ err: error, method: name }, 'sandbox Web API method threw');
      ctx.store.notice('error', `${name} hit a bug in the sandbox: ${errorMessage(error)}`);
      return 'internal_error';
    },
  });

  /** `/api/<method>` requests; `/response-url/<id>` posts. */
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    await endpoint(req, res, url);
  };
}

function detail(error: SlackApiError): string {
  const messages = (error.extra.response_metadata as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) && messages.length > 0 ? ` (${messages.slice(0, 3).join('; ')})` : '';
}
