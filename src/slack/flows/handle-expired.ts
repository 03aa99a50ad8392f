import type { ExpiredRequest } from '../../agent/types.js';
import { updateCard } from './update-card.js';
import { runInThread } from './run-in-thread.js';
import type { SlackContext } from '../slack-context.js';
import { targetForAction } from './target-for-action.js';
import { refreshHomesFor } from '../home/affected-users.js';

/** After the expiry sweep: the card says Expired and the run's continuation shows in its thread. */
export async function handleExpired(ctx: SlackContext, expired: ExpiredRequest): Promise<void> {
  const card = await updateCard(ctx, expired.action.id);
  refreshHomesFor(ctx, expired.action);
  if (!expired.stream) return;
  const target = await targetForAction(ctx, expired.action, undefined, { card });
  if (!target) {
    ctx.logger.warn({ actionId: expired.action.id }, 'expired request has no thread; continuation not shown');
    await expired.stream.result;
    return;
  }
  await runInThread(ctx, expired.stream, target);
}
