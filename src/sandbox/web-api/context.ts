import type { BotLink } from '../deliver-event.js';
import type { SandboxStore } from '../store.js';
import type { Args } from '../../simulator/index.js';
import type { ResponseUrls } from './response-url.js';

/** What every Web API method can reach. */
export interface ApiContext {
  store: SandboxStore;
  bot: BotLink;
  responseUrls: ResponseUrls;
  /** http://host:port of the sandbox, for permalinks. */
  origin: string;
  /** Whether the bot's own posts come back to it as message events, as on Slack. */
  echoBotMessages: boolean;
  /** Slack's trigger lifetime; a later views.open still works here but is pointed out. */
  slackTriggerMs: number;
}

export type ApiMethod = (args: Args, ctx: ApiContext) => Record<string, unknown>;
