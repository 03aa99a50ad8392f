/** conversations.replies, .history, .open, .info and .members. */
import { SlackApiError } from '../api-error.js';
import { inTimeWindow, withListedMetadata } from '../conversation-window.js';
import type { Handler } from '../web-api-endpoint.js';
import { wireMessage } from '../message-store.js';
import { optString, reqString } from '../wire-args.js';
import type { Channel } from '../workspace.js';
import type { MethodContext } from './method-context.js';

function channelInfo(c: Channel): Record<string, unknown> {
  if (c.type === 'im') return { id: c.id, is_im: true, is_channel: false, user: c.user, is_open: true };
  const isGroup = c.type === 'group';
  return { id: c.id, name: c.name, is_channel: !isGroup, is_group: isGroup, is_im: false, is_private: isGroup, is_member: true, ...(c.isGeneral ? { is_general: true } : {}) };
}

export function conversationMethods(ctx: MethodContext): Record<string, Handler> {
  const { store, workspace, page } = ctx;
  return {
    'conversations.replies': (args) => {
      const channel = ctx.channel(args).id;
      const ts = reqString(args, 'ts');
      // Asking with a reply's ts returns that reply's thread, as Slack does.
      const asked = store.message(channel, ts);
      const thread = store.thread(channel, asked?.thread_ts ?? ts);
      if (thread.length === 0) throw new SlackApiError('thread_not_found');
      // The thread's root comes first whatever the window; the window bounds its replies.
      const [root, ...replies] = thread;
      const listed = [root!, ...replies.filter((m) => inTimeWindow(m.ts, args))].map((m) => withListedMetadata(wireMessage(m), args));
      const p = page(listed, args);
      return { ok: true, messages: p.items, has_more: p.has_more, response_metadata: p.response_metadata };
    },

    'conversations.history': (args) => {
      const channel = ctx.channel(args).id;
      const topLevel = store
        .messages(channel)
        .filter((m) => (m.thread_ts === undefined || m.thread_ts === m.ts || m.subtype === 'thread_broadcast') && inTimeWindow(m.ts, args));
      const p = page([...topLevel].reverse().map((m) => withListedMetadata(wireMessage(m), args)), args);
      return { ok: true, messages: p.items, has_more: p.has_more, response_metadata: p.response_metadata };
    },

    'conversations.open': (args) => {
      const users = (optString(args, 'users') ?? '').split(',').map((u) => u.trim()).filter(Boolean);
      if (users.length === 0) throw new SlackApiError('users_list_not_supplied');
      return { ok: true, channel: channelInfo(workspace.openConversation(users)) };
    },

    'conversations.info': (args) => ({ ok: true, channel: channelInfo(ctx.channel(args)) }),

    'conversations.members': (args) => {
      const p = page(workspace.members(ctx.channel(args)), args);
      return { ok: true, members: p.items, response_metadata: p.response_metadata };
    },
  };
}
