import { errorReference } from '../kit/error-reference.js';
import { runFailureText } from './run-failure-text.js';
import type { SlackContext, ThreadTarget } from '../context.js';

/**
 * Tells the thread something failed, with a reference that is also in the
 * log line; the details stay in the log, where only operators see them.
 */
export async function postError(ctx: SlackContext, target: ThreadTarget, error: unknown, what: string): Promise<string> {
  const ref = errorReference();
  ctx.logger.error({ err: error, ref, channel: target.channel, threadTs: target.threadTs }, what);
  try {
    await ctx.client.chat.postMessage({
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      text: runFailureText(error, ref),
    });
  } catch (postError) {
    ctx.logger.error({ err: postError, ref }, 'could not post the error message either');
  }
  return ref;
}
