/** chat.postMessage, chat.update, chat.postEphemeral, chat.delete and chat.getPermalink. */
import { botMessageEvent, messageChangedEvent, messageDeletedEvent } from '../event-payloads.js';
import { wireMessage } from '../interaction-payloads.js';
import { isTs, SlackApiError, optString, reqString, truthy } from '../../simulator/index.js';
import type { StoredMessage } from '../store.js';
import { BOT, botAuthor, isMember } from '../workspace.js';
import { messageContent } from './content.js';
import type { ApiContext, ApiMethod } from './context.js';
import { channelArg, userArg } from './resolve.js';

function echo(ctx: ApiContext, envelope: Record<string, unknown>): void {
  if (ctx.echoBotMessages) void ctx.bot.sendEvent(envelope);
}

/** A reply's thread_ts may name any message of the thread; Slack files it under the root. */
function threadRoot(ctx: ApiContext, channel: string, threadTs: string | undefined): string | undefined {
  if (threadTs === undefined) return undefined;
  if (!isTs(threadTs)) throw new SlackApiError('invalid_thread_ts');
  const parent = ctx.store.message(channel, threadTs);
  if (!parent) throw new SlackApiError('thread_not_found');
  return parent.thread_ts ?? parent.ts;
}

function botOwned(message: StoredMessage | undefined, refusal: string): StoredMessage {
  if (!message) throw new SlackApiError('message_not_found');
  if (message.bot_id !== BOT.botId) throw new SlackApiError(refusal);
  return message;
}

export const chatMethods: Record<string, ApiMethod> = {
  'chat.postMessage': (args, ctx) => {
    const channel = channelArg(args);
    const content = messageContent(args, true);
    const threadTs = threadRoot(ctx, channel.id, optString(args, 'thread_ts'));
    const message = ctx.store.addMessage({
      channel: channel.id,
      text: content.text ?? '',
      ...botAuthor(),
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(content.attachments ? { attachments: content.attachments } : {}),
      ...(args.metadata !== undefined ? { metadata: structuredClone(args.metadata) } : {}),
      ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
      ...(threadTs !== undefined && truthy(args.reply_broadcast) ? { subtype: 'thread_broadcast' } : {}),
    });
    echo(ctx, botMessageEvent(message));
    return { ok: true, channel: channel.id, ts: message.ts, message: wireMessage(message) };
  },

  'chat.update': (args, ctx) => {
    const channel = channelArg(args);
    const ts = reqString(args, 'ts', 'message_not_found');
    const message = botOwned(ctx.store.message(channel.id, ts), 'cant_update_message');
    const content = messageContent(args, true);
    const previous = structuredClone(message);
    const editedTs = ctx.store.nextTs();
    ctx.store.updateMessage(channel.id, ts, {
      text: content.text ?? '',
      // Slack drops the blocks when an update sends only text.
      blocks: content.blocks ?? [],
      ...(content.attachments ? { attachments: content.attachments } : {}),
      ...(args.metadata !== undefined ? { metadata: structuredClone(args.metadata) } : {}),
      edited: { user: BOT.userId, ts: editedTs },
    });
    echo(ctx, messageChangedEvent(message, previous, editedTs));
    return { ok: true, channel: channel.id, ts, text: message.text, message: wireMessage(message) };
  },

  'chat.postEphemeral': (args, ctx) => {
    const channel = channelArg(args);
    const user = userArg(args);
    if (!isMember(channel, user)) throw new SlackApiError('user_not_in_channel');
    const content = messageContent(args, true);
    const threadTs = threadRoot(ctx, channel.id, optString(args, 'thread_ts'));
    const ephemeral = ctx.store.addEphemeral({
      channel: channel.id,
      user,
      text: content.text ?? '',
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
    });
    return { ok: true, message_ts: ephemeral.ts };
  },

  'chat.delete': (args, ctx) => {
    const channel = channelArg(args);
    const ts = reqString(args, 'ts', 'message_not_found');
    const message = botOwned(ctx.store.message(channel.id, ts), 'cant_delete_message');
    const previous = structuredClone(message);
    ctx.store.deleteMessage(channel.id, ts);
    echo(ctx, messageDeletedEvent(previous, ctx.store.nextTs()));
    return { ok: true, channel: channel.id, ts };
  },

  'chat.getPermalink': (args, ctx) => {
    const channel = channelArg(args);
    const ts = reqString(args, 'message_ts', 'message_not_found');
    const message = ctx.store.message(channel.id, ts);
    if (!message) throw new SlackApiError('message_not_found');
    const thread = message.thread_ts !== undefined && message.thread_ts !== ts ? `&thread=${message.thread_ts}` : '';
    return { ok: true, channel: channel.id, permalink: `${ctx.origin}/?channel=${channel.id}&ts=${ts}${thread}` };
  },
};
