/**
 * The sandbox's Slack Web API at /api/<method> (and its response URLs): the bot's WebClient is
 * pointed here with SLACK_API_URL and cannot tell the difference. The methods, the wire format,
 * tokens, Slack-style errors and fault injection are all the Slack simulator's; the sandbox gives
 * them its store and workspace, and hooks them to the screen: refusals and late triggers become
 * notices, and the bot's own posts go back to it as events. Nothing the bot sends can crash it:
 * an unexpected exception becomes `internal_error` and a notice on screen.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../error-message.js';
import type { Logger } from '../logger.js';
import { FaultPlan, SlackApiError, slackWebApi, webApiEndpoint } from '../simulator/index.js';
import type { BotLink } from './deliver-event.js';
import type { SandboxStore } from './store.js';
import { sandboxWorkspace } from './workspace.js';

/** What the bot's app asks for, less the AI-app methods the sandbox does not serve (its UI has no assistant pane). */
const SCOPES = 'app_mentions:read,channels:history,groups:history,groups:read,im:history,chat:write,commands,reactions:write,usergroups:read,users:read';

interface WebApiOptions {
  store: SandboxStore;
  bot: BotLink;
  /** http://host:port of the sandbox, for permalinks and auth.test's url. */
  origin: string;
  botToken: string;
  /** Whether the bot's own posts come back to it as message events, as on Slack. */
  echoBotMessages: boolean;
  /** Faults to inject into the bot's calls (429s, 5xx, delays); none unless planned. */
  faults: FaultPlan;
  logger?: Logger;
}

/** Handles `/api/<method>` requests and `/response-url/…` posts; false for any other path. */
export function webApiHandler(o: WebApiOptions): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> {
  const { store, logger } = o;
  return webApiEndpoint({
    ...slackWebApi(store, {
      workspace: sandboxWorkspace(o.origin),
      fillBlockIds: true,
      aiAppMethods: false,
      ...(o.echoBotMessages ? { echo: (envelope) => void o.bot.sendEvent(envelope) } : {}),
      warn: (text) => store.notice('warn', text),
    }),
    acceptsToken: (token) => token === o.botToken,
    scopes: SCOPES,
    faults: o.faults,
    onRefused: (method, error) => {
      logger?.debug({ method, error: error.code }, 'sandbox Web API refused a call');
      store.notice('warn', `${method} failed: ${error.code}${detail(error)}`);
    },
    onCrash: (method, error) => {
      logger?.error({ err: error, method }, 'sandbox Web API method threw');
      store.notice('error', `${method} hit a bug in the sandbox: ${errorMessage(error)}`);
      return 'internal_error';
    },
  });
}

function detail(error: SlackApiError): string {
  const messages = (error.extra.response_metadata as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) && messages.length > 0 ? ` (${messages.slice(0, 3).join('; ')})` : '';
}
