import type { Click, SlackContext, ThreadTarget } from '../context.js';

/**
 * An ephemeral reply only `user` sees: how refusals are answered, so the thread stays clean.
 * A click from the inbox is answered where it was made (Click.answerAt).
 */
export async function tellUser(ctx: SlackContext, at: ThreadTarget & Pick<Click, 'user' | 'answerAt'>, text: string): Promise<void> {
  if (at.answerAt === 'home' && ctx.home) return ctx.home.notice(at.user, text);
  const where = at.answerAt && at.answerAt !== 'home' ? { ...at.answerAt, user: at.user } : at;
  try {
    await ctx.client.chat.postEphemeral({
      channel: where.channel,
      user: where.user,
      text,
      ...(where.threadTs ? { thread_ts: where.threadTs } : {}),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, user: where.user }, 'ephemeral reply could not be posted');
  }
}
