/** reactions.add, reactions.remove and reactions.get: the bot's own reactions. */
import { SlackApiError } from '../api-error.js';
import type { SlackArgs } from '../types.js';
import type { Handler } from '../web-api-endpoint.js';
import { wireMessage } from '../message-store.js';
import { reqString } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

export function reactionMethods(ctx: MethodContext): Record<string, Handler> {
  const { store, workspace } = ctx;

  function target(args: SlackArgs): { channel: string; ts: string; name: string } {
    const channel = ctx.channel(args).id;
    const ts = reqString(args, 'timestamp', 'no_item_specified');
    // Slack accepts the name with or without colons, and a skin tone after it (`thumbsup::skin-tone-2`);
    // anything else is not an emoji name.
    const name = reqString(args, 'name', 'invalid_name').replace(/^:|:$/g, '');
    if (!/^[a-z0-9_+'-]{1,100}(?:::skin-tone-[2-6])?$/.test(name)) throw new SlackApiError('invalid_name');
    if (!store.message(channel, ts)) throw new SlackApiError('message_not_found');
    return { channel, ts, name };
  }

  return {
    'reactions.add': (args) => {
      const { channel, ts, name } = target(args);
      if (!store.react(channel, ts, name, workspace.ids.botUserId, true)) throw new SlackApiError('already_reacted');
      return { ok: true };
    },

    'reactions.remove': (args) => {
      const { channel, ts, name } = target(args);
      if (!store.react(channel, ts, name, workspace.ids.botUserId, false)) throw new SlackApiError('no_reaction');
      return { ok: true };
    },

    'reactions.get': (args) => {
      const channel = ctx.channel(args).id;
      const message = store.message(channel, reqString(args, 'timestamp', 'no_item_specified'));
      if (!message) throw new SlackApiError('message_not_found');
      return { ok: true, type: 'message', channel, message: wireMessage(message) };
    },
  };
}
