/**
 * The Web API methods the simulator serves, over its store, one family per file in methods/.
 * Each answers like Slack: a result with `ok: true`, or a SlackApiError that becomes HTTP 200
 * `{ ok: false, error }`. Every message and view goes through the one Block Kit checker
 * (block-limits.ts).
 */
import { SlackApiError } from './api-error.js';
import { messageContent } from './block-limits.js';
import { clone } from './json.js';
import { assistantMethods } from './methods/assistant.js';
import { chatMethods } from './methods/chat.js';
import { chatStreamMethods } from './methods/chat-stream.js';
import { conversationMethods } from './methods/conversations.js';
import { methodContext } from './methods/method-context.js';
import { reactionMethods } from './methods/reactions.js';
import { viewMethods } from './methods/views.js';
import { workspaceMethods } from './methods/workspace.js';
import type { SimulatorStore } from './store.js';
import type { ResponseUrlTarget, SlackArgs, SlackSimulatorOptions, StoredEphemeral } from './types.js';
import type { Handler } from './web-api-endpoint.js';
import { truthy } from './wire-args.js';

export { wireMessage } from './wire-message.js';

export function webApiMethods(store: SimulatorStore, options: SlackSimulatorOptions): Record<string, Handler> {
  const ctx = methodContext(store, options);
  return {
    ...workspaceMethods(ctx),
    ...chatMethods(ctx),
    ...chatStreamMethods(ctx),
    ...assistantMethods(ctx),
    ...reactionMethods(ctx),
    ...viewMethods(ctx),
    ...conversationMethods(ctx),
  };
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
