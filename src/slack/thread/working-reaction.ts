import type { SlackContext } from '../context.js';
import { slackErrorCode } from '../transport/slack-web-client.js';

const REACTION = 'eyes';

/** Short enough that the reaction, with Slack's own latency, still shows within a second. */
export const DEFAULT_WORKING_REACTION_DELAY_MS = 300;

/**
 * The "I'm on it" signal: a reaction on the message that started the work,
 * removed when the work ends. It goes on only once the work has taken
 * `workingReactionDelayMs` (a model call nearly always does): work that is
 * done sooner shows its outcome within that time, and a reaction added and
 * removed at once would only flicker and spend two Web API calls. Failures
 * only cost the signal.
 */
export interface WorkingReaction {
  done(): Promise<void>;
}

/**
 * Takes off the working reaction; also one this process did not add (a
 * stopped process left it behind), where there may be none: that only costs
 * the call.
 */
export async function clearWorkingReaction(ctx: Pick<SlackContext, 'client' | 'logger'>, message: { channel: string; ts: string }): Promise<void> {
  await ctx.client.reactions
    .remove({ channel: message.channel, timestamp: message.ts, name: REACTION })
    .catch((error: unknown) => ctx.logger.debug({ err: error }, 'could not remove the working reaction'));
}

export function workingReaction(
  ctx: Pick<SlackContext, 'client' | 'logger' | 'workingReactionDelayMs'>,
  message: { channel: string; ts: string },
): WorkingReaction {
  let added: Promise<boolean> | undefined;
  const add = () => {
    added = ctx.client.reactions
      .add({ channel: message.channel, timestamp: message.ts, name: REACTION })
      .then(() => true)
      .catch((error: unknown) => {
        if (slackErrorCode(error) === 'already_reacted') return true;
        ctx.logger.debug({ err: error }, 'could not add the working reaction');
        return false;
      });
  };
  let timer: NodeJS.Timeout | undefined;
  if (ctx.workingReactionDelayMs > 0) {
    timer = setTimeout(add, ctx.workingReactionDelayMs);
    // Cleared by done(); it must not keep a stopping process alive on its own.
    timer.unref();
  } else {
    add();
  }
  return {
    async done() {
      clearTimeout(timer);
      if (!added || !(await added)) return;
      await clearWorkingReaction(ctx, message);
    },
  };
}
