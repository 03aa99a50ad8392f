import { postCard } from './post-card.js';
import { runInThread } from './run-in-thread.js';
import type { SlackContext } from '../slack-context.js';
import { findThread, threadTarget } from '../store/threads.js';
import { clearWorkingReaction } from './working-reaction.js';

/**
 * Posts the card of a request whose process stopped before posting it (see
 * claimUnpostedCards), in the run's thread, as that process would have; and
 * takes off the working reaction it left on the message that asked.
 */
export async function postUnpostedCard(ctx: SlackContext, actionId: number): Promise<void> {
  const action = await ctx.agent.findRequest(actionId);
  const thread = action ? await findThread(ctx.slackDb, action.root_run_id) : undefined;
  const log = ctx.logger.child({ actionId, runId: action?.run_id });
  if (!action || !thread) {
    log.warn('request without a card has no thread on record; its card cannot be posted');
    return;
  }
  const target = threadTarget(thread);
  const outcome = await postCard(ctx, actionId, target, (continuation) => runInThread(ctx, continuation, target), action);
  log.warn({ outcome }, 'card posted by the sweep: the process that wrote the request stopped before posting it');
  if (thread.message_ts) await clearWorkingReaction(ctx, { channel: thread.channel, ts: thread.message_ts });
}
