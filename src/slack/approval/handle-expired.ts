import type { ExpiredRequest } from '../../agent/api-types.js';
import type { PendingAction } from '../../db/rows.js';
import { findCard, type CardRow } from '../card/cards.js';
import { expiredText } from '../kit/notice-text.js';
import { updateCard } from '../card/update-card.js';
import { runInThread } from '../thread/run-in-thread.js';
import type { SlackContext } from '../context.js';
import { targetForAction } from '../card/threads.js';
import { refreshHomesFor } from '../card/inbox-refresh.js';

/**
 * The requester hears that their request expired (the card alone changes silently). Only the
 * instance whose sweep expired the request gets here, so it is said once.
 */
export async function tellRequesterExpired(ctx: SlackContext, action: PendingAction, card: CardRow | undefined): Promise<void> {
  if (action.kind !== 'approval') return;
  const target = await targetForAction(ctx, action, undefined, { card });
  if (!target) return;
  const text = expiredText({
    actionId: action.id,
    toolName: action.tool_name,
    expiresAt: action.expires_at ? new Date(action.expires_at) : new Date(Number.NaN),
    ...(action.requester ? { requester: action.requester } : {}),
  });
  try {
    await ctx.client.chat.postMessage({ channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}), text });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: action.id }, 'expiry could not be told to the requester');
  }
}

/**
 * After the expiry sweep: the card says Expired and the run's continuation shows in its thread.
 * With `redraw`, the card is handed to it instead of redrawn here (the sweep redraws a backlog at
 * the pace Slack allows, while the runs go on).
 */
export async function handleExpired(ctx: SlackContext, expired: ExpiredRequest, redraw?: (actionId: number) => void): Promise<void> {
  const card = redraw ? await findCard(ctx.slackDb, expired.action.id) : await updateCard(ctx, expired.action.id);
  redraw?.(expired.action.id);
  refreshHomesFor(ctx, expired.action);
  await tellRequesterExpired(ctx, expired.action, card);
  if (!expired.stream) return;
  const target = await targetForAction(ctx, expired.action, undefined, { card });
  if (!target) {
    ctx.logger.warn({ actionId: expired.action.id }, 'expired request has no thread; continuation not shown');
    await expired.stream.result;
    return;
  }
  await runInThread(ctx, expired.stream, target);
}
