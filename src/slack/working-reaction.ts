import type { SlackContext } from './slack-context.js';

const REACTION = 'eyes';

/**
 * The "I'm on it" signal: a reaction on the message that started the work,
 * added at once and removed when the work ends. Failures only cost the signal.
 */
export interface WorkingReaction {
  done(): Promise<void>;
}

export function workingReaction(ctx: SlackContext, message: { channel: string; ts: string }): WorkingReaction {
  const added = ctx.client.reactions
    .add({ channel: message.channel, timestamp: message.ts, name: REACTION })
    .then(() => true)
    .catch((error: unknown) => {
      const code = (error as { data?: { error?: string } }).data?.error;
      if (code === 'already_reacted') return true;
      ctx.logger.debug({ err: error }, 'could not add the working reaction');
      return false;
    });
  return {
    async done() {
      if (!(await added)) return;
      await ctx.client.reactions
        .remove({ channel: message.channel, timestamp: message.ts, name: REACTION })
        .catch((error: unknown) => ctx.logger.debug({ err: error }, 'could not remove the working reaction'));
    },
  };
}
