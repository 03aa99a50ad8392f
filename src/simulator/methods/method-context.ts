/** What every Web API method of the simulator works with: its store, its workspace, its options, and the argument rules they share. */
import { SlackApiError } from '../api-error.js';
import { messageContent, type MessageContent } from '../block-limits.js';
import { cursorPage, type CursorPage } from '../cursor-page.js';
import type { JsonObject } from '../json.js';
import { isTs } from '../slack-ts.js';
import type { SimulatorStore } from '../store.js';
import type { SlackArgs, StoredMessage } from '../types.js';
import type { Channel, SimulatedWorkspace } from '../workspace.js';
import { reqString } from '../wire-args.js';

export interface MethodOptions {
  workspace: SimulatedWorkspace;
  /** Check each block against Block Kit's structure and limits. Default true. */
  checkBlocks?: boolean;
  /** Fill in the block_ids and action_ids a sender left out, as Slack does. Default false. */
  fillBlockIds?: boolean;
  /** Serve the AI-app methods (assistant.threads.setStatus, chat.startStream/appendStream/stopStream). Default true. */
  aiAppMethods?: boolean;
  /** The bot's own posts, edits and deletions as the message events Slack sends back (echo-events.ts). */
  echo?(envelope: JsonObject): void;
  /** Something Slack would have refused but the store let through (a trigger_id used late). */
  warn?(text: string): void;
}

/** A store as the methods use it: what else it announces (the sandbox's announces more) is none of theirs. */
export type MethodStore = Omit<SimulatorStore, 'onChange'>;

export interface MethodContext extends MethodOptions {
  store: MethodStore;
  checkBlocks: boolean;
  /** The channel an argument names; a user id means the DM with that person, as on Slack. */
  channel(args: SlackArgs, key?: string): Channel;
  /** A person the workspace knows (or the bot). */
  user(args: SlackArgs, key: string): string;
  contentOf(args: SlackArgs, requireContent: boolean): MessageContent;
  /** A reply's thread_ts may name any message of its thread; Slack files it under the root. */
  threadRoot(channel: string, threadTs: string | undefined): string | undefined;
  /** The author fields of a message the bot posts. */
  botAuthor(): Pick<StoredMessage, 'user' | 'bot_id' | 'app_id' | 'bot_profile' | 'team'>;
  page<T>(items: T[], args: SlackArgs): CursorPage<T>;
}

export function methodContext(store: MethodStore, options: MethodOptions): MethodContext {
  const { workspace } = options;
  const { ids } = workspace;
  const checkBlocks = options.checkBlocks ?? true;
  return {
    ...options,
    store,
    checkBlocks,
    channel: (args, key = 'channel') => {
      const id = reqString(args, key);
      const channel = workspace.channel(/^[UW][A-Z0-9]+$/.test(id) ? `D${id.slice(1)}` : id);
      if (!channel) throw new SlackApiError('channel_not_found');
      return channel;
    },
    user: (args, key) => {
      const id = reqString(args, key);
      if (!workspace.user(id)) throw new SlackApiError('user_not_found');
      return id;
    },
    contentOf: (args, requireContent) => messageContent(args, { requireContent, checkBlocks, fillBlockIds: options.fillBlockIds ?? false }),
    threadRoot: (channel, threadTs) => {
      if (threadTs === undefined) return undefined;
      if (!isTs(threadTs)) throw new SlackApiError('invalid_thread_ts');
      const parent = store.message(channel, threadTs);
      // A store that saw only part of the workspace (the simulator's) takes an unknown root on trust.
      if (!parent) {
        if (store.complete) throw new SlackApiError('thread_not_found');
        return threadTs;
      }
      return parent.thread_ts ?? parent.ts;
    },
    botAuthor: () => ({
      user: ids.botUserId,
      bot_id: ids.botId,
      app_id: ids.appId,
      ...(workspace.botProfile ? { bot_profile: structuredClone(workspace.botProfile) } : {}),
      team: ids.teamId,
    }),
    // Slack's default page is the whole list here: callers that page ask for a limit.
    page: (items, args) => cursorPage(items, args, 1000),
  };
}
