/** What every Web API method of the simulator works with: its store and options, and the argument rules they share. */
import { SlackApiError } from '../api-error.js';
import { messageContent, type MessageContent } from '../block-limits.js';
import { cursorPage, type CursorPage } from '../cursor-page.js';
import type { SimulatorStore } from '../store.js';
import type { SlackArgs, SlackSimulatorOptions } from '../types.js';

export interface MethodContext {
  store: SimulatorStore;
  options: SlackSimulatorOptions;
  /** Whether each block is checked against Block Kit's limits (validateBlocks). */
  checkBlocks: boolean;
  /** The channel a call addresses: a user id means the DM with them, as on Slack. */
  resolveChannel(channel: string): string;
  contentOf(args: SlackArgs, requireContent: boolean): MessageContent;
  page<T>(items: T[], args: SlackArgs): CursorPage<T>;
}

export function methodContext(store: SimulatorStore, options: SlackSimulatorOptions): MethodContext {
  const checkBlocks = options.validateBlocks ?? true;
  const knownChannels = options.channels ? new Set(options.channels) : undefined;
  return {
    store,
    options,
    checkBlocks,
    resolveChannel: (channel) => {
      if (/^[UW][A-Z0-9]+$/.test(channel)) return `D${channel.slice(1)}`;
      if (knownChannels && !knownChannels.has(channel) && !channel.startsWith('D')) throw new SlackApiError('channel_not_found');
      return channel;
    },
    contentOf: (args, requireContent) => messageContent(args, { requireContent, checkBlocks }),
    // Slack's default page is the whole list here: callers that page ask for a limit.
    page: (items, args) => cursorPage(items, args, 1000),
  };
}
