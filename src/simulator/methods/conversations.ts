/** conversations.replies, .history, .open, .info and .members. */
import { SlackApiError } from '../api-error.js';
import { SLACK_IDS } from '../ids.js';
import { randomHex } from '../random-ids.js';
import type { Handler } from '../web-api-endpoint.js';
import { wireMessage } from '../wire-message.js';
import { inTimeWindow, withListedMetadata } from '../conversation-window.js';
import { reqString } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

export function conversationMethods(ctx: MethodContext): Record<string, Handler> {
  const { store, options, resolveChannel, page } = ctx;
  return {
    'conversations.replies': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'ts');
      const thread = store.messages.thread(channel, ts);
      if (thread.length === 0) throw new SlackApiError('thread_not_found');
      // The thread's root comes first whatever the window; the window bounds its replies.
      const [root, ...replies] = thread;
      const listed = [root!, ...replies.filter((m) => inTimeWindow(m.ts, args))].map((m) => withListedMetadata(wireMessage(m), args));
      const p = page(listed, args);
      return { ok: true, messages: p.items, has_more: p.has_more, response_metadata: p.response_metadata };
    },

    'conversations.history': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const topLevel = store.messages.messages(channel).filter((m) => (m.thread_ts === undefined || m.thread_ts === m.ts) && inTimeWindow(m.ts, args));
      const p = page([...topLevel].reverse().map((m) => withListedMetadata(wireMessage(m), args)), args);
      return { ok: true, messages: p.items, has_more: p.has_more, response_metadata: p.response_metadata };
    },

    'conversations.open': (args) => {
      const users = reqString(args, 'users').split(',').map((u) => u.trim()).filter(Boolean);
      const [first] = users;
      if (first === undefined) throw new SlackApiError('users_list_not_supplied');
      const id = users.length === 1 ? `D${first.slice(1)}` : `G${randomHex(5).toUpperCase()}`;
      return { ok: true, channel: { id } };
    },

    'conversations.info': (args) => {
      const id = resolveChannel(reqString(args, 'channel'));
      if (id.startsWith('D')) return { ok: true, channel: { id, is_im: true, is_channel: false, user: `U${id.slice(1)}`, is_open: true } };
      return { ok: true, channel: { id, name: id.toLowerCase(), is_channel: !id.startsWith('G'), is_group: id.startsWith('G'), is_im: false, is_private: id.startsWith('G'), is_member: true } };
    },

    'conversations.members': (args) => {
      const id = resolveChannel(reqString(args, 'channel'));
      const members = id.startsWith('D') ? [`U${id.slice(1)}`, SLACK_IDS.botUserId] : (options.channelMembers?.[id] ?? [SLACK_IDS.botUserId]);
      const p = page(members, args);
      return { ok: true, members: p.items, response_metadata: p.response_metadata };
    },
  };
}
