import type { Decision, ExpiredRequest } from '../../agent/api-types.js';
import { markCardsDrawn, showCardUpdate } from '../card/show-card-update.js';
import { refreshHomesFor } from '../card/lifecycle.js';
import { type CardRow, findCard, targetForAction } from '../card/cards.js';
import { refusalText, onItsCard, refusalSeenBy } from '../card/button-check.js';
import { recipientOf, type Click, type DrawnMark, type SlackContext, type ThreadTarget, tellUser } from '../context.js';
import { requestOf, type Request } from '../../agent/request.js';
import { expiredText } from '../kit/notice-text.js';
import { approversAt } from '../../approvals/approvers-at.js';
import type { NotifyMode } from '../../approvals/policy-types.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { truncate } from '../kit/limits.js';
import { humanList, mention, whoDecides } from '../kit/mention.js';

/**
 * Shows the result of an approve/decline: the card redrawn when the request
 * changed, an ephemeral to the clicker when it did not (or when they should
 * know why), and the run's continuation in its thread. `card` is where the
 * request's card is, when the caller read it before deciding.
 */
export async function showDecision(ctx: SlackContext, decision: Decision, click: ThreadTarget & Pick<Click, 'user' | 'teamId' | 'answerAt'>, card?: CardRow): Promise<void> {
  const refusal = refusalText(decision, click.user);
  const request = decision.outcome === 'not-found' ? undefined : requestOf(decision.action);
  // Said in full on the card; from the inbox (or for a request without a card) only to someone who may see the request.
  if (refusal) await tellUser(ctx, click, await refusalSeenBy(ctx, click, request, refusal, onItsCard(click, card)));
  if (decision.outcome === 'not-found' || !request) return;

  const changed =
    decision.outcome === 'approved' ||
    decision.outcome === 'declined' ||
    (decision.outcome === 'approval-recorded' && !decision.alreadyCounted) ||
    ('stream' in decision && decision.stream !== undefined);
  // A click that found the request already expired redraws it too: the sweep may not have got there yet. So does
  // one on a card with no row that was decided already: it was posted without its location stored (see adoptCard).
  const drawn: DrawnMark[] = [];
  const final = (decision.outcome === 'approved' || decision.outcome === 'declined') && card ? { action: request, card, marks: drawn } : undefined;
  const lost = decision.outcome === 'already-decided' && !card;
  const redrawn = changed || decision.outcome === 'expired' || lost ? { card: await showCardUpdate(ctx, request.id, final) } : undefined;
  if (changed || decision.outcome === 'expired') refreshHomesFor(ctx, request);

  if (decision.outcome === 'approval-recorded' && !decision.alreadyCounted) await showQuorumProgress(ctx, request, redrawn?.card ?? card);

  const stream = 'stream' in decision ? decision.stream : undefined;
  // This click found the request past its time and expired it (a stream means it did): the requester hears, once.
  if (decision.outcome === 'expired' && stream) await tellRequesterExpired(ctx, request, redrawn?.card);
  if (!stream) return markCardsDrawn(ctx.slackDb, drawn);
  // From the inbox, a run without a card or thread (one started outside Slack) goes on where it was started, not where the click was.
  const target = await targetForAction(ctx, request, click.answerAt === undefined ? click : undefined, redrawn);
  if (!target) {
    ctx.logger.info({ actionId: request.id }, 'the run has no thread in Slack; it goes on without one');
    await stream.result;
    return;
  }
  await ctx.showRememberedCreated(target, decision);
  await ctx.runs.show(ctx, stream, target, { drawn, ...recipientOf(request.requester, click) });
}

/**
 * The requester hears that their request expired (the card alone changes silently). Only the
 * instance whose sweep expired the request gets here, so it is said once.
 */
async function tellRequesterExpired(ctx: SlackContext, action: Request, card: CardRow | undefined): Promise<void> {
  if (action.kind !== 'approval') return;
  const target = await targetForAction(ctx, action, undefined, { card });
  if (!target) return;
  const text = expiredText({
    actionId: action.id,
    toolName: action.toolName,
    expiresAt: action.expiresAt ? new Date(action.expiresAt) : new Date(Number.NaN),
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
export async function showExpired(ctx: SlackContext, expired: ExpiredRequest, redraw?: (actionId: number) => void): Promise<void> {
  const request = requestOf(expired.action);
  const card = redraw ? await findCard(ctx.slackDb, request.id) : await showCardUpdate(ctx, request.id);
  redraw?.(request.id);
  refreshHomesFor(ctx, request);
  await tellRequesterExpired(ctx, request, card);
  if (!expired.stream) return;
  const target = await targetForAction(ctx, request, undefined, { card });
  if (!target) {
    ctx.logger.warn({ actionId: request.id }, 'expired request has no thread; continuation not shown');
    await expired.stream.result;
    return;
  }
  await ctx.runs.show(ctx, expired.stream, target);
}

/**
 * After an approval that leaves the request pending, the card's thread is told what is left, so
 * the approvers still needed hear about it (the redrawn card alone notifies nobody).
 */
export async function showQuorumProgress(ctx: SlackContext, action: Request, known?: CardRow): Promise<void> {
  if (action.status !== 'pending' || action.approvals.length === 0) return;
  const card = known ?? (await findCard(ctx.slackDb, action.id));
  if (!card) return;
  const requirement = ctx.agent.requirementOf(action);
  const voted = new Set(action.approvals.map((a) => a.userId));
  const remaining = approversAt(requirement, new Date(action.createdAt), new Date()).filter((id) => !voted.has(id));
  const text = quorumProgressText({
    actionId: action.id,
    toolName: action.toolName,
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

interface QuorumProgress {
  actionId: number;
  toolName: string;
  quorum: number;
  /** Who approved so far, in order. */
  approvals: readonly string[];
  /** Who may still approve: the approvers (users and groups) minus the users who already did. */
  remaining: readonly string[];
  notify: NotifyMode;
}

/**
 * "1 of 2: @bob approved `issue_refund` (request #7); one more from @finance." The people still
 * needed are mentioned (they are the ones being asked); the tool name is escaped.
 */
export function quorumProgressText(p: QuorumProgress): string {
  const left = Math.max(0, p.quorum - p.approvals.length);
  const who = humanList(p.approvals.map(mention), { maxChars: 600 });
  const what = `\`${escapeMrkdwn(truncate(p.toolName, 100))}\` (request #${p.actionId})`;
  const more = left === 1 ? 'one more' : `${left} more`;
  const from = p.remaining.length > 0 ? ` from ${whoDecides(p.remaining, p.notify, { maxChars: 1000 })}` : '';
  return `${p.approvals.length} of ${p.quorum}: ${who} approved ${what}; ${more} needed${from}.`;
}
