import type { PendingAction } from '../../db/rows.js';
import type { SlackContext, ThreadTarget } from '../context.js';
import { findCard, type CardRow } from '../card/cards.js';
import { findThread, threadTarget } from './threads.js';

/**
 * Where a run's continuation talks: beside the card, else in the run's thread,
 * else where the click was. `known` is the card as the caller just read it
 * (updateCard returns it), to save reading it again.
 */
export async function targetForAction(
  ctx: SlackContext,
  action: Pick<PendingAction, 'id' | 'root_run_id'>,
  fallback?: ThreadTarget,
  known?: { card: CardRow | undefined },
): Promise<ThreadTarget | undefined> {
  const card = known ? known.card : await findCard(ctx.slackDb, action.id);
  if (card) return { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) };
  const thread = await findThread(ctx.slackDb, action.root_run_id);
  if (thread) return threadTarget(thread);
  return fallback;
}
