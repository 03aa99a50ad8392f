/** reactions.add and reactions.remove: the bot's own reactions. */
import { SlackApiError } from '../api-error.js';
import { SLACK_IDS } from '../ids.js';
import type { Handler } from '../web-api-endpoint.js';
import { reqString } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

export function reactionMethods(ctx: MethodContext): Record<string, Handler> {
  const { store, resolveChannel } = ctx;
  return {
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
  };
}
