/**
 * A post to a response_url (response-urls.ts): ephemeral to the clicker by default, `in_channel`
 * posts, and `replace_original` / `delete_original` act on the message the interaction came
 * from, an ephemeral one included.
 */
import { SlackApiError } from '../api-error.js';
import type { SlackArgs } from '../types.js';
import { wireMessage } from '../message-store.js';
import { truthy } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

export function respondToUrl(ctx: MethodContext, path: string, args: SlackArgs): Record<string, unknown> {
  const { store } = ctx;
  const target = store.responseUrls.use(path);
  const original = target.messageTs;
  if (truthy(args.delete_original)) {
    if (original !== undefined) {
      if (target.isEphemeral) store.removeEphemeral(original);
      else store.deleteMessage(target.channel, original);
    }
    return { ok: true };
  }
  const content = ctx.contentOf(args, true);
  if (truthy(args.replace_original) && original !== undefined) {
    const patch = { text: content.text ?? '', blocks: content.blocks ?? [] };
    if (target.isEphemeral) store.replaceEphemeral(original, patch);
    else if (!store.updateMessage(target.channel, original, patch)) throw new SlackApiError('message_not_found');
    return { ok: true };
  }
  // response_type defaults to ephemeral: only the clicker sees it.
  if (args.response_type === 'in_channel') {
    const message = store.addMessage({
      channel: target.channel,
      text: content.text ?? '',
      ...ctx.botAuthor(),
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(target.threadTs !== undefined ? { thread_ts: target.threadTs } : {}),
    });
    return { ok: true, message: wireMessage(message) };
  }
  store.addEphemeral({
    channel: target.channel,
    user: target.user ?? '',
    text: content.text ?? '',
    ...(content.blocks ? { blocks: content.blocks } : {}),
    ...(target.threadTs !== undefined ? { thread_ts: target.threadTs } : {}),
  });
  return { ok: true };
}
