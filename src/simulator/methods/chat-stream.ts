/**
 * chat.startStream, chat.appendStream and chat.stopStream: a bot message whose markdown text
 * grows while it streams. Outside a DM Slack wants to know who the streamed text is for.
 */
import { SlackApiError, invalidArguments } from '../api-error.js';
import { clone } from '../json.js';
import type { Handler } from '../web-api-endpoint.js';
import { optString, reqString } from '../wire-args.js';
import { wireMessage } from '../message-store.js';
import type { MethodContext } from './method-context.js';

/** Slack's limit on markdown_text in one call. */
const STREAM_MARKDOWN_MAX = 12_000;

export function chatStreamMethods(ctx: MethodContext): Record<string, Handler> {
  const { store } = ctx;
  const key = (channel: string, ts: string) => `${channel} ${ts}`;

  function markdown(args: Record<string, unknown>, required: boolean): string {
    const text = optString(args, 'markdown_text');
    if (text === undefined && required && args.chunks === undefined) throw invalidArguments('missing required field: markdown_text [json-pointer:/markdown_text]');
    if (text !== undefined && text.length > STREAM_MARKDOWN_MAX) throw new SlackApiError('msg_too_long');
    return text ?? '';
  }

  function streamingMessage(args: Record<string, unknown>) {
    const channel = ctx.channel(args).id;
    const ts = reqString(args, 'ts');
    const message = store.message(channel, ts);
    if (!message) throw new SlackApiError('message_not_found');
    if (message.bot_id !== ctx.workspace.ids.botId) throw new SlackApiError('cant_update_message');
    if (!store.streaming.has(key(channel, ts))) throw new SlackApiError('message_not_in_streaming_state');
    return { channel, ts, message };
  }

  return {
    'chat.startStream': (args) => {
      const channel = ctx.channel(args).id;
      const threadTs = optString(args, 'thread_ts');
      if (threadTs !== undefined && !/^\d+\.\d+$/.test(threadTs)) throw new SlackApiError('invalid_thread_ts');
      if (!channel.startsWith('D')) {
        if (threadTs === undefined) throw invalidArguments('missing required field: thread_ts [json-pointer:/thread_ts]');
        if (optString(args, 'recipient_user_id') === undefined) throw invalidArguments('missing required field: recipient_user_id [json-pointer:/recipient_user_id]');
        if (optString(args, 'recipient_team_id') === undefined) throw invalidArguments('missing required field: recipient_team_id [json-pointer:/recipient_team_id]');
      }
      const text = markdown(args, false);
      const message = store.addMessage({ channel, text, ...ctx.botAuthor(), ...(threadTs !== undefined ? { thread_ts: threadTs } : {}) });
      store.streaming.add(key(channel, message.ts));
      return { ok: true, channel, ts: message.ts };
    },

    'chat.appendStream': (args) => {
      const { channel, ts, message } = streamingMessage(args);
      const text = markdown(args, true);
      store.updateMessage(channel, ts, { text: message.text + text });
      return { ok: true, channel, ts };
    },

    'chat.stopStream': (args) => {
      const { channel, ts, message } = streamingMessage(args);
      const text = markdown(args, false);
      const blocks = args.blocks !== undefined ? ctx.contentOf({ blocks: args.blocks, text: 'x' }, false).blocks : undefined;
      store.streaming.delete(key(channel, ts));
      const updated = store.updateMessage(channel, ts, {
        text: message.text + text,
        ...(blocks ? { blocks } : {}),
        ...(args.metadata !== undefined ? { metadata: clone(args.metadata) } : {}),
      });
      return { ok: true, channel, ts, ...(updated ? { message: wireMessage(updated) } : {}) };
    },
  };
}
