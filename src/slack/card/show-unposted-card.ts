import { showCard } from './show-card.js';
import { findRequest, type SlackContext } from '../context.js';
import { settleCardRepair, adoptCard } from './card-repairs.js';
import { findThread, threadTarget } from './threads.js';
import { showCardUpdate } from './show-card-update.js';

/**
 * Repairs the card of a request that has none on record (see claimUnpostedCards). A card that was
 * posted but whose location could not be stored is found in the run's thread and adopted, then
 * drawn as its request is now (buttons gone if it was decided meanwhile); only when there is none
 * is the card posted, in the run's thread, as the process that wrote the request would have
 * (and only while the request still waits). Takes off the working reaction that process left on
 * the message that asked.
 */
export async function showUnpostedCard(ctx: SlackContext, actionId: number): Promise<void> {
  const action = await findRequest(ctx, actionId);
  const thread = action ? await findThread(ctx.slackDb, action.rootRunId) : undefined;
  const log = ctx.logger.child({ actionId, runId: action?.runId });
  if (!action || !thread) {
    log.warn('request without a card has no thread on record; its card cannot be posted');
    if (action && action.status !== 'pending') await settleCardRepair(ctx.slackDb, actionId);
    return;
  }
  const adoption = await adoptCard(ctx, action, thread);
  // Slack could not be read: the claim lapses and a later sweep looks again, rather than posting a second card.
  if (adoption === 'failed') return;
  // A notice instead of the card leaves the claim on record: the card is tried again once it lapses.
  let settled = true;
  if (adoption === 'adopted') {
    await showCardUpdate(ctx, actionId);
    log.warn('card adopted by the sweep: it was posted, but where it went had not been stored');
  } else if (action.status !== 'pending') {
    log.info({ status: action.status }, 'request decided without a card: there was none to find');
  } else {
    const target = threadTarget(thread);
    const outcome = await showCard(ctx, actionId, target, (continuation) => ctx.runs.show(ctx, continuation, target), action);
    log.warn({ outcome }, 'card posted by the sweep: the process that wrote the request stopped before posting it');
    settled = outcome !== 'fallback';
  }
  if (settled) await settleCardRepair(ctx.slackDb, actionId);
  if (thread.message_ts) await ctx.runs.clearWorkingReaction(ctx, { channel: thread.channel, ts: thread.message_ts });
}
