import type { SlackContext, ThreadTarget } from '../slack-context.js';

/** An ephemeral reply only `user` sees: how refusals are answered, so the thread stays clean. */
export async function tellUser(ctx: SlackContext, where: ThreadTarget & { user: string }, text: string): Promise<void> {
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
