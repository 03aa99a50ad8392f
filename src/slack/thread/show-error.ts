import { errorReference } from '../kit/error-reference.js';
import type { SlackContext, ThreadTarget } from '../context.js';
import { hasAgentErrorCode } from '../../agent/errors.js';
import { inlineCode } from '../kit/mrkdwn/escape-mrkdwn.js';

/**
 * Tells the thread something failed, with a reference that is also in the
 * log line; the details stay in the log, where only operators see them.
 */
export async function showError(ctx: SlackContext, target: ThreadTarget, error: unknown, what: string): Promise<string> {
  const ref = errorReference();
  ctx.logger.error({ err: error, ref, channel: target.channel, threadTs: target.threadTs }, what);
  try {
    await ctx.client.chat.postMessage({
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      text: runFailureText(error, ref),
    });
  } catch (failed) {
    ctx.logger.error({ err: failed, ref }, 'could not post the error message either');
  }
  return ref;
}

/**
 * What a thread is told when its run failed. A model that did not answer is
 * named, with the HTTP status its provider gave, so whoever runs the bot knows
 * where to look (a key, a quota, an outage); the provider's own message stays
 * in the log, as it can quote part of the key. Anything else is only a reference.
 */
export function runFailureText(error: unknown, ref: string): string {
  if (hasAgentErrorCode(error, 'MODEL_CALL_FAILED')) {
    const model = typeof error.details.model === 'string' ? error.details.model : 'the model';
    const status = typeof error.details.statusCode === 'number' ? ` (HTTP ${error.details.statusCode})` : '';
    return `:warning: Something went wrong while working on this: the model ${inlineCode(model)} did not answer${status}. Reference: \`${ref}\``;
  }
  return `:warning: Something went wrong while working on this. Reference: \`${ref}\``;
}
