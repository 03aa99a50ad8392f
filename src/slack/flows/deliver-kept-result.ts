import { ANSWER_EVENT_TYPE, answerMessages, postAnswer } from './post-answer.js';
import type { SlackContext, ThreadTarget } from '../slack-context.js';
import type { KeptResult } from '../store/claim-kept-results.js';
import { markRunShown } from '../store/mark-run-shown.js';
import { threadTarget } from '../store/threads.js';
import { clearWorkingReaction } from './working-reaction.js';

/** How far back a DM's top level is searched for parts already posted, before the run ended. */
const TOP_LEVEL_LOOKBACK_S = 300;
/** Pages of the thread read at the most while looking for parts already posted. */
const MAX_PAGES = 10;

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
  const found = new Set<number>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const common = { channel: target.channel, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) };
    const response = target.threadTs
      ? await ctx.client.conversations.replies({ ...common, ts: target.threadTs })
      : await ctx.client.conversations.history({ ...common, oldest: String(kept.finished_at.getTime() / 1000 - TOP_LEVEL_LOOKBACK_S) });
    for (const message of response.messages ?? []) {
      // Only the bot's own messages: another app could post metadata that claims a part was posted.
      if (ctx.botUserId !== undefined && message.user !== ctx.botUserId) continue;
      const metadata = (message as { metadata?: { event_type?: string; event_payload?: { run_id?: unknown; part?: unknown } } }).metadata;
      if (metadata?.event_type !== ANSWER_EVENT_TYPE || metadata.event_payload?.run_id !== kept.run_id) continue;
      if (typeof metadata.event_payload.part === 'number') found.add(metadata.event_payload.part);
    }
    cursor = response.response_metadata?.next_cursor || undefined;
    if (!response.has_more || !cursor) break;
  }
  return found;
}
