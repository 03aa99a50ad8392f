import { ANSWER_EVENT_TYPE, answerMessages, postAnswer } from './post-answer.js';
import type { SlackContext, ThreadTarget } from '../context.js';
import type { KeptResult } from './claim-kept-results.js';
import { markRunShown } from './mark-run-shown.js';
import { threadTarget } from './threads.js';
import { clearWorkingReaction } from './working-reaction.js';
import { botMessagesWithMetadata } from '../card/metadata-messages.js';

/** How far back a DM's top level is searched for parts already posted, before the run ended. */
const TOP_LEVEL_LOOKBACK_S = 300;

/**
 * Posts the kept answer of a run whose process ended the run but stopped (or
 * failed) before showing it (see claimKeptResults), and lets it go. Parts the
 * process did post carry the run's id in their metadata and are not posted
 * again, so the thread gets the answer once. Clears the working reaction the
 * process left.
 */
export async function deliverKeptResult(ctx: SlackContext, kept: KeptResult): Promise<void> {
  const log = ctx.logger.child({ runId: kept.run_id });
  if (!kept.channel) {
    log.warn('kept answer of a run with no thread on record; let go unposted');
    await markRunShown(ctx.slackDb, kept.run_id);
    return;
  }
  const target = threadTarget({ channel: kept.channel, thread_ts: kept.thread_ts });
  const parts = answerMessages(kept.text).length;
  const posted = parts > 0 ? await postedParts(ctx, target, kept) : new Set<number>();
  await postAnswer(ctx, target, kept.text, { runId: kept.run_id }, posted);
  await markRunShown(ctx.slackDb, kept.run_id);
  log.warn({ parts, alreadyPosted: posted.size }, 'answer posted by the sweep: the process that ended the run did not show it');
  if (kept.message_ts) await clearWorkingReaction(ctx, { channel: kept.channel, ts: kept.message_ts });
}

/** The part numbers of this run's answer already in the conversation, read from the bot's messages' metadata. */
async function postedParts(ctx: SlackContext, target: ThreadTarget, kept: KeptResult): Promise<Set<number>> {
  const oldest = target.threadTs ? undefined : String(kept.finished_at.getTime() / 1000 - TOP_LEVEL_LOOKBACK_S);
  const messages = await botMessagesWithMetadata(ctx, target, ANSWER_EVENT_TYPE, oldest ? { oldest } : {});
  const found = new Set<number>();
  for (const { payload } of messages) if (payload.run_id === kept.run_id && typeof payload.part === 'number') found.add(payload.part);
  return found;
}
