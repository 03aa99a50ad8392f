import { updateCard } from '../card/update-card.js';
import { releaseThreadLocks } from './claim-event.js';
import { refreshHomesFor } from '../inbox/affected-users.js';
import type { SlackContext } from '../context.js';

/**
 * Stops the runs waiting in a thread (Agent.cancelRuns), so nothing further
 * runs and no model is asked to carry on (the thread's memory says the calls
 * were cancelled, by whom), frees the thread for the next request, and redraws
 * the cancelled requests' cards. Returns the ids of the requests it cancelled:
 * none when a decision landed first.
 */
export async function cancelThreadRuns(ctx: SlackContext, rootRunIds: string[], actor: string): Promise<number[]> {
  const cancelled = await ctx.agent.cancelRuns(rootRunIds, actor, 'Cancelled in Slack.');
  if (cancelled.length > 0) await releaseThreadLocks(ctx.slackDb, rootRunIds);
  for (const id of cancelled) await updateCard(ctx, id);
  // Inboxes that listed them drop them; read after the redraws, so nothing waits on it.
  if (ctx.home) for (const id of cancelled) {
    ctx.agent.findRequest(id).then(
      (row) => refreshHomesFor(ctx, row),
      (error: unknown) => ctx.logger.warn({ err: error, actionId: id }, 'cancelled request could not be read for Home updates'),
    );
  }
  return cancelled;
}
