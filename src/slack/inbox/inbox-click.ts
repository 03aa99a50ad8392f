import type { BlockAction, ButtonAction } from '@slack/bolt';
import { parseButtonValue } from '../kit/button-value.js';
import { teamOfClicker, type Click, type SlackContext } from '../context.js';
import { findCard } from '../card/cards.js';
import { placesStored } from '../card/clicked-card.js';
import { tellUser } from '../kit/tell-user.js';
import { UNSEEN_REQUEST } from '../card/unseen-request.js';
import { findThread } from '../card/threads.js';

/**
 * A click on Approve or Decline in the inbox (Home tab, or the /approvals list), as if it were
 * made on the request's card: it is routed to the card's message, so the card's own checks
 * (the button is that request's, the fingerprint matches, the clicker may decide) and its
 * decision path apply unchanged, and the run goes on in the card's thread. What the clicker is
 * told goes back where they clicked, and names the request only to someone who may see it
 * (refusalSeenBy). Undefined (the clicker told what an unknown id is told) when there is no card
 * to route to.
 */
export async function inboxClick(ctx: SlackContext, body: BlockAction<ButtonAction>, action: ButtonAction): Promise<Click | undefined> {
  const user = body.user?.id;
  if (!user) return undefined;
  const container = body.container as { type?: unknown; channel_id?: unknown };
  const channel = body.channel?.id ?? (typeof container.channel_id === 'string' ? container.channel_id : undefined);
  const answerAt: Click['answerAt'] = container.type === 'view' || !channel ? 'home' : { channel };
  const actionId = parseButtonValue(action.value)?.actionId;
  if (actionId !== undefined) await placesStored(ctx, [actionId]);
  const card = actionId !== undefined ? await findCard(ctx.slackDb, actionId) : undefined;
  const base = { user, ...(body.trigger_id ? { triggerId: body.trigger_id } : {}), teamId: teamOfClicker(body), answerAt };
  // A run nobody requested (an API run, a scheduled job) has no thread and so no card: it is decided here.
  if (!card && actionId !== undefined && (await unattendedOutsideSlack(ctx, actionId))) return { ...base, channel: channel ?? user };
  if (!card) {
    ctx.logger.warn({ user, value: action.value }, 'inbox click for a request without a card');
    // Whether the id names a request at all is not for this reply to say (see unseen-request.ts).
    await tellUser(ctx, { user, channel: channel ?? user, answerAt }, UNSEEN_REQUEST);
    return undefined;
  }
  return { ...base, channel: card.channel, messageTs: card.ts, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) };
}

/** Whether the request is of a run nobody requested, with no thread in Slack. */
async function unattendedOutsideSlack(ctx: SlackContext, actionId: number): Promise<boolean> {
  const row = await ctx.agent.findRequest(actionId);
  return row !== undefined && row.kind === 'approval' && !row.requester && (await findThread(ctx.slackDb, row.root_run_id)) === undefined;
}
