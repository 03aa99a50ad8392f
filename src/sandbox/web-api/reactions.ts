/** reactions.add and reactions.remove, always as the bot (the only token the sandbox hands out). */
import { BOT } from '../workspace.js';
import { SlackApiError, reqString, type Args } from '../../simulator/index.js';
import type { ApiContext, ApiMethod } from './context.js';
import { channelArg } from './resolve.js';

function target(args: Args, ctx: ApiContext): { channel: string; ts: string; name: string } {
  const channel = channelArg(args).id;
  const ts = reqString(args, 'timestamp', 'no_item_specified');
  // Slack accepts the name with or without colons, and a skin tone after it (`thumbsup::skin-tone-2`);
  // anything else is not an emoji name.
  const name = reqString(args, 'name', 'invalid_name').replace(/^:|:$/g, '');
  if (!/^[a-z0-9_+'-]{1,100}(?:::skin-tone-[2-6])?$/.test(name)) throw new SlackApiError('invalid_name');
  if (!ctx.store.message(channel, ts)) throw new SlackApiError('message_not_found');
  return { channel, ts, name };
}

export const reactionMethods: Record<string, ApiMethod> = {
  'reactions.add': (args, ctx) => {
    const { channel, ts, name } = target(args, ctx);
    if (!ctx.store.react(channel, ts, name, BOT.userId, true)) throw new SlackApiError('already_reacted');
    return { ok: true };
  },
  'reactions.remove': (args, ctx) => {
    const { channel, ts, name } = target(args, ctx);
    if (!ctx.store.react(channel, ts, name, BOT.userId, false)) throw new SlackApiError('no_reaction');
    return { ok: true };
  },
  'reactions.get': (args, ctx) => {
    const channel = channelArg(args).id;
    const ts = reqString(args, 'timestamp', 'no_item_specified');
    const message = ctx.store.message(channel, ts);
    if (!message) throw new SlackApiError('message_not_found');
    const { channel: _c, ...rest } = structuredClone(message);
    return { ok: true, type: 'message', channel, message: rest };
  },
};
