/**
 * The Web API methods the simulator serves, over its store. Each answers like Slack: a result
 * with `ok: true`, or a SlackApiError that becomes HTTP 200 `{ ok: false, error }`. Every message
 * and view goes through the one Block Kit checker (block-limits.ts).
 */
import { SlackApiError } from './api-error.js';
import { checkedView, messageContent, type MessageContent } from './block-limits.js';
import { SLACK_IDS } from './ids.js';
import { clone, isObj, type Obj } from './json.js';
import { randomHex } from './random-ids.js';
import { viewObject } from './view-object.js';
import { cursorPage } from './cursor-page.js';
import type { Handler } from './web-api-endpoint.js';
import { microsToTs } from './slack-ts.js';
import type { SimulatorStore } from './store.js';
import type { ResponseUrlTarget, SimulatedUser, SlackArgs, SlackSimulatorOptions, StoredEphemeral, StoredMessage, StoredView } from './types.js';
import { optString, reqString, truthy } from './wire-args.js';


const TRIGGER_ID = /^\d+\.\d+\.[0-9a-f]+$/;

/** What Slack returns as `message` in API responses: no `channel` key. */
export function wireMessage(m: StoredMessage): Record<string, unknown> {
  const { channel: _channel, ...rest } = clone(m);
  return rest;
}

export function webApiMethods(store: SimulatorStore, options: SlackSimulatorOptions): Record<string, Handler> {
  const checkBlocks = options.validateBlocks ?? true;
  const knownChannels = options.channels ? new Set(options.channels) : undefined;
  const contentOf = (args: SlackArgs, requireContent: boolean): MessageContent => messageContent(args, { requireContent, checkBlocks });

  /** Posting to a user id lands in the DM with them, as on Slack. */
  function resolveChannel(channel: string): string {
    if (/^[UW][A-Z0-9]+$/.test(channel)) return `D${channel.slice(1)}`;
    if (knownChannels && !knownChannels.has(channel) && !channel.startsWith('D')) {
      throw new SlackApiError('channel_not_found');
    }
    return channel;
  }

  function userProfile(id: string): SimulatedUser {
    const known = options.users?.[id];
    const name = known?.name ?? id.toLowerCase();
    return {
      id,
      name,
      real_name: known?.real_name ?? name,
      is_bot: known?.is_bot ?? id === SLACK_IDS.botUserId,
      deleted: known?.deleted ?? false,
      tz: known?.tz ?? 'Europe/Berlin',
    };
  }

  function consumeTrigger(args: SlackArgs): void {
    const trigger = reqString(args, 'trigger_id');
    if (!TRIGGER_ID.test(trigger)) throw new SlackApiError('invalid_trigger_id');
    if (store.expiredTriggers === 'all' || store.expiredTriggers.has(trigger)) throw new SlackApiError('expired_trigger_id');
    if (store.usedTriggers.has(trigger)) throw new SlackApiError('exchanged_trigger_id');
    store.usedTriggers.add(trigger);
  }

  /** Slack's default page is the whole list here: callers that page ask for a limit. */
  const page = <T>(items: T[], args: SlackArgs) => cursorPage(items, args, 1000);


  const handlers: Record<string, Handler> = {
    'api.test': (args) => ({ ok: true, args: clone(args) }),

    'auth.test': () => ({
      ok: true,
      url: `https://${SLACK_IDS.teamDomain}.slack.com/`,
      team: SLACK_IDS.teamName,
      user: SLACK_IDS.botName,
      team_id: SLACK_IDS.teamId,
      user_id: SLACK_IDS.botUserId,
      bot_id: SLACK_IDS.botId,
      is_enterprise_install: false,
    }),

    'chat.postMessage': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const content = contentOf(args, true);
      const threadTs = optString(args, 'thread_ts');
      if (threadTs !== undefined && !/^\d+\.\d+$/.test(threadTs)) throw new SlackApiError('invalid_thread_ts');
      const message = store.messages.add({
        channel,
        text: content.text ?? '',
        ...store.botAuthor(),
        ...(content.blocks ? { blocks: clone(content.blocks) } : {}),
        ...(content.attachments ? { attachments: clone(content.attachments) } : {}),
        ...(args.metadata !== undefined ? { metadata: clone(args.metadata) } : {}),
        ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
      });
      return { ok: true, channel, ts: message.ts, message: wireMessage(message) };
    },

    'chat.update': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'ts');
      const content = contentOf(args, false);
      const message = store.messages.message(channel, ts);
      if (!message) throw new SlackApiError('message_not_found');
      if (message.bot_id !== SLACK_IDS.botId) throw new SlackApiError('cant_update_message');
      if (content.text !== undefined) message.text = content.text;
      if (content.blocks !== undefined) message.blocks = clone(content.blocks);
      if (content.attachments !== undefined) message.attachments = clone(content.attachments);
      if (args.metadata !== undefined) message.metadata = clone(args.metadata);
      message.edited = { user: SLACK_IDS.botUserId, ts: microsToTs((BigInt(Date.now()) / 1000n) * 1_000_000n) };
      return { ok: true, channel, ts, text: message.text, message: wireMessage(message) };
    },

    'chat.postEphemeral': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const user = reqString(args, 'user');
      const content = contentOf(args, true);
      const ephemeral: StoredEphemeral = { channel, user, message_ts: store.nextTs(), text: content.text ?? '' };
      if (content.blocks) ephemeral.blocks = clone(content.blocks);
      const threadTs = optString(args, 'thread_ts');
      if (threadTs !== undefined) ephemeral.thread_ts = threadTs;
      store.ephemerals.push(ephemeral);
      return { ok: true, message_ts: ephemeral.message_ts };
    },

    'chat.delete': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'ts');
      const message = store.messages.message(channel, ts);
      if (!message) throw new SlackApiError('message_not_found');
      if (message.bot_id !== SLACK_IDS.botId) throw new SlackApiError('cant_delete_message');
      store.messages.remove(channel, ts);
      return { ok: true, channel, ts };
    },

    'chat.getPermalink': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'message_ts');
      const message = store.messages.message(channel, ts);
      if (!message) throw new SlackApiError('message_not_found');
      const base = `https://${SLACK_IDS.teamDomain}.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
      const permalink = message.thread_ts && message.thread_ts !== ts ? `${base}?thread_ts=${message.thread_ts}&cid=${channel}` : base;
      return { ok: true, channel, permalink };
    },

    'reactions.add': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'timestamp');
      const name = reqString(args, 'name');
      if (!store.messages.message(channel, ts)) throw new SlackApiError('message_not_found');
      if (!store.messages.react(channel, ts, name, SLACK_IDS.botUserId, true)) throw new SlackApiError('already_reacted');
      return { ok: true };
    },

    'reactions.remove': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'timestamp');
      const name = reqString(args, 'name');
      if (!store.messages.message(channel, ts)) throw new SlackApiError('message_not_found');
      if (!store.messages.react(channel, ts, name, SLACK_IDS.botUserId, false)) throw new SlackApiError('no_reaction');
      return { ok: true };
    },

    'views.open': (args) => {
      const view = checkedView(args, 'modal', { checkBlocks });
      consumeTrigger(args);
      const stored = viewObject(view, store.newViewId(), undefined, null);
      store.views.set(stored.id, stored);
      return { ok: true, view: clone(stored) };
    },

    'views.push': (args) => {
      const view = checkedView(args, 'modal', { checkBlocks });
      consumeTrigger(args);
      const current = [...store.views.values()].filter((v) => v.type === 'modal').at(-1);
      const stored = viewObject(view, store.newViewId(), undefined, current?.id ?? null);
      if (current) stored.root_view_id = current.root_view_id;
      store.views.set(stored.id, stored);
      return { ok: true, view: clone(stored) };
    },

    'views.update': (args) => {
      const view = checkedView(args, 'modal', { checkBlocks });
      const viewId = optString(args, 'view_id');
      const externalId = optString(args, 'external_id');
      if (viewId === undefined && externalId === undefined) {
        throw new SlackApiError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: view_id or external_id'] } });
      }
      const existing = viewId !== undefined ? store.views.get(viewId) : [...store.views.values()].find((v) => v.external_id === externalId);
      if (!existing) throw new SlackApiError('not_found');
      const hash = optString(args, 'hash');
      if (hash !== undefined && hash !== existing.hash) throw new SlackApiError('hash_conflict');
      const stored = viewObject(view, existing.id, existing, existing.previous_view_id);
      store.views.set(stored.id, stored);
      return { ok: true, view: clone(stored) };
    },

    'views.publish': (args) => {
      const user = reqString(args, 'user_id');
      if (!/^[UW][A-Z0-9]{2,}$/.test(user)) throw new SlackApiError('invalid_user');
      const view = checkedView(args, 'home', { checkBlocks });
      const existing = store.homeView(user);
      const hash = optString(args, 'hash');
      if (hash !== undefined && existing !== undefined && hash !== existing.hash) throw new SlackApiError('hash_conflict');
      const stored = viewObject(view, existing?.id ?? store.newViewId(), existing, null);
      store.views.set(stored.id, stored);
      store.homeViews.set(user, stored.id);
      return { ok: true, view: clone(stored) };
    },

    'usergroups.users.list': (args) => {
      const id = reqString(args, 'usergroup');
      const users = store.usergroups.get(id);
      if (!users) throw new SlackApiError('no_such_subteam');
      return { ok: true, users: [...users] };
    },

    'conversations.replies': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'ts');
      const thread = store.messages.thread(channel, ts);
      if (thread.length === 0) throw new SlackApiError('thread_not_found');
      const p = page(thread.map(wireMessage), args);
      return { ok: true, messages: p.items, has_more: p.has_more, response_metadata: p.response_metadata };
    },

    'conversations.history': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const topLevel = store.messages.messages(channel).filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts);
      const p = page([...topLevel].reverse().map(wireMessage), args);
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

    'users.info': (args) => {
      const id = reqString(args, 'user');
      if (!options.users?.[id] && !/^[UW][A-Z0-9]{2,}$/.test(id)) throw new SlackApiError('user_not_found');
      const u = userProfile(id);
      return {
        ok: true,
        user: {
          id: u.id,
          team_id: SLACK_IDS.teamId,
          name: u.name,
          deleted: u.deleted,
          real_name: u.real_name,
          tz: u.tz,
          is_bot: u.is_bot,
          is_app_user: false,
          profile: { real_name: u.real_name, display_name: u.name, team: SLACK_IDS.teamId },
        },
      };
    },
  };
  return handlers;
}

/**
 * A post to a response_url: ephemeral to the clicker by default, `in_channel` posts, and
 * `replace_original` / `delete_original` act on the message the interaction came from.
 */
export function respondToUrl(store: SimulatorStore, target: ResponseUrlTarget | undefined, args: SlackArgs, checkBlocks: boolean): Record<string, unknown> {
  if (!target) throw new SlackApiError('no_such_response_url');
  const content = messageContent(args, { requireContent: !truthy(args.delete_original), checkBlocks });
  if (truthy(args.delete_original)) {
    if (target.messageTs !== undefined) store.messages.remove(target.channel, target.messageTs);
    return { ok: true };
  }
  if (truthy(args.replace_original) && target.messageTs !== undefined) {
    const message = store.messages.message(target.channel, target.messageTs);
    if (!message) throw new SlackApiError('message_not_found');
    store.messages.update(target.channel, target.messageTs, { text: content.text ?? message.text, blocks: content.blocks ? clone(content.blocks) : [] });
    return { ok: true };
  }
  // response_type defaults to ephemeral: only the clicker sees it.
  if (args.response_type === 'in_channel') {
    store.messages.add({
      channel: target.channel,
      text: content.text ?? '',
      ...store.botAuthor(),
      ...(content.blocks ? { blocks: clone(content.blocks) } : {}),
      ...(target.threadTs !== undefined ? { thread_ts: target.threadTs } : {}),
    });
  } else {
    const ephemeral: StoredEphemeral = { channel: target.channel, user: target.user ?? '', message_ts: store.nextTs(), text: content.text ?? '' };
    if (content.blocks) ephemeral.blocks = clone(content.blocks);
    if (target.threadTs !== undefined) ephemeral.thread_ts = target.threadTs;
    store.ephemerals.push(ephemeral);
  }
  return { ok: true };
}
