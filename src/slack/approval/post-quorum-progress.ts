import type { PendingAction } from '../../db/rows.js';
import { approversAt } from '../../approvals/approvers-at.js';
import { quorumProgressText } from './quorum-progress-text.js';
import type { SlackContext } from '../context.js';
import type { CardRow } from '../card/cards.js';
import { findCard } from '../card/cards.js';

/**
 * After an approval that leaves the request pending, the card's thread is told what is left, so
 * the approvers still needed hear about it (the redrawn card alone notifies nobody).
 */
export async function postQuorumProgress(ctx: SlackContext, action: PendingAction, known?: CardRow): Promise<void> {
  if (action.status !== 'pending' || action.approvals.length === 0) return;
  const card = known ?? (await findCard(ctx.slackDb, action.id));
  if (!card) return;
  const requirement = ctx.agent.requirementOf(action);
  const voted = new Set(action.approvals.map((a) => a.userId));
  const remaining = approversAt(requirement, new Date(action.created_at), new Date()).filter((id) => !voted.has(id));
  const text = quorumProgressText({
    actionId: action.id,
    toolName: action.tool_name,
    quorum: action.quorum,
    approvals: action.approvals.map((a) => a.userId),
    remaining,
    notify: requirement.reach.notify,
  });
  // In the thread, and under each copy routed to the approvers (that is where they look).
  const places = [{ channel: card.channel, thread_ts: card.thread_ts ?? undefined }, ...(card.copies ?? []).map((c) => ({ channel: c.channel, thread_ts: c.ts }))];
  for (const place of places) {
    try {
      await ctx.client.chat.postMessage({ channel: place.channel, ...(place.thread_ts ? { thread_ts: place.thread_ts } : {}), text });
    } catch (error) {
      ctx.logger.warn({ err: error, actionId: action.id, channel: place.channel }, 'quorum progress could not be posted');
    }
  }
}
