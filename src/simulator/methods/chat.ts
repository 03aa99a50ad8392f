/** chat.postMessage, chat.update, chat.postEphemeral, chat.delete and chat.getPermalink: the bot's messages. */
import { SlackApiError } from '../api-error.js';
import { botMessageEvent, messageChangedEvent, messageDeletedEvent } from '../echo-events.js';
import { clone } from '../json.js';
import type { StoredMessage } from '../types.js';
import type { Handler } from '../web-api-endpoint.js';
import { wireMessage } from '../message-store.js';
import { optString, reqString, truthy } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

export function chatMethods(ctx: MethodContext): Record<string, Handler> {
  const { store, workspace, contentOf } = ctx;

  function botOwned(message: StoredMessage | undefined, refusal: string): StoredMessage {
    if (!message) throw new SlackApiError('message_not_found');
    if (message.bot_id !== workspace.ids.botId) throw new SlackApiError(refusal);
    return message;
  }

  return {
    'chat.postMessage': (args) => {
      const channel = ctx.channel(args).id;
      const content = contentOf(args, true);
      const threadTs = ctx.threadRoot(channel, optString(args, 'thread_ts'));
      const message = store.addMessage({
        channel,
        text: content.text ?? '',
        ...ctx.botAuthor(),
        ...(content.blocks ? { blocks: content.blocks } : {}),
        ...(content.attachments ? { attachments: content.attachments } : {}),
        ...(args.metadata !== undefined ? { metadata: clone(args.metadata) } : {}),
        ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
        ...(threadTs !== undefined && truthy(args.reply_broadcast) ? { subtype: 'thread_broadcast' } : {}),
      });
      ctx.echo?.(botMessageEvent(workspace, message));
      return { ok: true, channel, ts: message.ts, message: wireMessage(message) };
    },

    'chat.update': (args) => {
      const channel = ctx.channel(args).id;
      const ts = reqString(args, 'ts');
      const message = botOwned(store.message(channel, ts), 'cant_update_message');
      const content = contentOf(args, true);
      const previous = clone(message);
      const editedTs = store.nextTs();
      store.updateMessage(channel, ts, {
        text: content.text ?? '',
        // Slack drops the blocks when an update sends only text.
        blocks: content.blocks ?? [],
        ...(content.attachments ? { attachments: content.attachments } : {}),
        ...(args.metadata !== undefined ? { metadata: clone(args.metadata) } : {}),
        edited: { user: workspace.ids.botUserId, ts: editedTs },
      });
      ctx.echo?.(messageChangedEvent(workspace, message, previous, editedTs));
      return { ok: true, channel, ts, text: message.text, message: wireMessage(message) };
    },

    'chat.postEphemeral': (args) => {
      const channel = ctx.channel(args);
      const user = ctx.user(args, 'user');
      if (!workspace.isMember(channel, user)) throw new SlackApiError('user_not_in_channel');
      const content = contentOf(args, true);
      const threadTs = ctx.threadRoot(channel.id, optString(args, 'thread_ts'));
      const ephemeral = store.addEphemeral({
        channel: channel.id,
        user,
        text: content.text ?? '',
        ...(content.blocks ? { blocks: content.blocks } : {}),
        ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
      });
      return { ok: true, message_ts: ephemeral.ts };
    },

    'chat.delete': (args) => {
      const channel = ctx.channel(args).id;
      const ts = reqString(args, 'ts');
      botOwned(store.message(channel, ts), 'cant_delete_message');
      const previous = store.deleteMessage(channel, ts)!;
      ctx.echo?.(messageDeletedEvent(workspace, previous, store.nextTs()));
      return { ok: true, channel, ts };
    },

    'chat.getPermalink': (args) => {
      const channel = ctx.channel(args).id;
      const ts = reqString(args, 'message_ts');
      const message = store.message(channel, ts);
      if (!message) throw new SlackApiError('message_not_found');
      return { ok: true, channel, permalink: workspace.permalink(channel, ts, message.thread_ts) };
    },
  };
}
