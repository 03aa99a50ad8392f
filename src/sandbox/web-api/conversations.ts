/** conversations.replies, .history, .info, .open and .members over the sandbox's channels. */
import { wireMessage } from '../interaction-payloads.js';
import { cursorPage, inTimeWindow, SlackApiError, optString, reqString, type Args } from '../../simulator/index.js';
import { BOT, USERS, dmChannelOf, findChannel, findUser, type SandboxChannel } from '../workspace.js';
import type { ApiMethod } from './context.js';
import { channelArg } from './resolve.js';

const page = <T>(items: T[], args: Args) => cursorPage(items, args, 100);

function channelInfo(c: SandboxChannel): Record<string, unknown> {
  if (c.type === 'im') return { id: c.id, is_im: true, is_channel: false, user: c.user, is_open: true };
  return { id: c.id, name: c.name, is_channel: true, is_im: false, is_private: false, is_member: true, is_general: true };
}

export const conversationMethods: Record<string, ApiMethod> = {
  'conversations.replies': (args, ctx) => {
    const channel = channelArg(args).id;
    const ts = reqString(args, 'ts', 'thread_not_found');
    const root = ctx.store.message(channel, ts);
    // Asking with a reply's ts returns that reply's thread, as Slack does.
    const thread = root ? ctx.store.thread(channel, root.thread_ts ?? root.ts) : [];
    if (thread.length === 0) throw new SlackApiError('thread_not_found');
    const [first, ...rest] = thread;
    const listed = [first!, ...rest.filter((m) => inTimeWindow(m.ts, args))].map(wireMessage);
    const { items, ...paging } = page(listed, args);
    return { ok: true, messages: items, ...paging };
  },

  'conversations.history': (args, ctx) => {
    const channel = channelArg(args).id;
    const topLevel = ctx.store
      .messages(channel)
      .filter((m) => (m.thread_ts === undefined || m.thread_ts === m.ts || m.subtype === 'thread_broadcast') && inTimeWindow(m.ts, args));
    const { items, ...paging } = page([...topLevel].reverse().map(wireMessage), args);
    return { ok: true, messages: items, ...paging };
  },

  'conversations.info': (args) => ({ ok: true, channel: channelInfo(channelArg(args)) }),

  'conversations.open': (args) => {
    const users = (optString(args, 'users') ?? '').split(',').map((u) => u.trim()).filter(Boolean);
    if (users.length === 0) throw new SlackApiError('users_list_not_supplied');
    const [user] = users;
    // The sandbox has DMs with the bot only; group DMs are not part of its workspace.
    if (users.length > 1 || user === undefined) throw new SlackApiError('not_allowed_token_type');
    if (!findUser(user)) throw new SlackApiError('user_not_found');
    return { ok: true, channel: channelInfo(findChannel(dmChannelOf(user))!) };
  },

  'conversations.members': (args) => {
    const channel = channelArg(args);
    const members = channel.type === 'im' ? [channel.user!, BOT.userId] : [...USERS.map((u) => u.id), BOT.userId];
    const { items, ...paging } = page(members, args);
    return { ok: true, members: items, response_metadata: paging.response_metadata };
  },
};
