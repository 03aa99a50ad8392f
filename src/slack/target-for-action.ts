import type { PendingAction } from '../db/pending-action.js';
import type { SlackContext, ThreadTarget } from './slack-context.js';
import { findCard } from './store/cards.js';
import { findThread } from './store/threads.js';

/** Where a run's continuation talks: beside the card, else in the run's thread, else where the click was. */
export async function targetForAction(
  ctx: SlackContext,
  action: Pick<PendingAction, 'id' | 'root_run_id'>,
  fallback?: ThreadTarget,
): Promise<ThreadTarget | undefined> {
  const card = await findCard(ctx.slackDb, action.id);
  if (card) return { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) };
  const thread = await findThread(ctx.slackDb, action.root_run_id);
  if (thread) return { channel: thread.channel, ...(thread.thread_ts ? { threadTs: thread.thread_ts } : {}) };
  return fallback;
}
