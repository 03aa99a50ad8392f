/** chat.postMessage, chat.update, chat.postEphemeral, chat.delete and chat.getPermalink: the bot's messages. */
import { SlackApiError } from '../api-error.js';
import { SLACK_IDS } from '../ids.js';
import { clone } from '../json.js';
import { microsToTs } from '../slack-ts.js';
import type { StoredEphemeral } from '../types.js';
import type { Handler } from '../web-api-endpoint.js';
import { wireMessage } from '../wire-message.js';
import { optString, reqString } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

export function chatMethods(ctx: MethodContext): Record<string, Handler> {
  const { store, resolveChannel, contentOf } = ctx;
  return {
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
  };
}
