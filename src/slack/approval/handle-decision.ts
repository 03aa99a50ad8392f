import type { Decision } from '../../agent/api-types.js';
import { updateCard, type DrawnMark } from '../card/update-card.js';
import { markCardsDrawn } from '../thread/mark-run-shown.js';
import type { CardRow } from '../card/cards.js';
import { refusalText } from '../card/refusal-text.js';
import { runInThread } from '../thread/run-in-thread.js';
import type { Click, SlackContext, ThreadTarget } from '../context.js';
import { onItsCard, refusalSeenBy } from '../card/unseen-request.js';
import { targetForAction } from '../card/threads.js';
import { tellUser } from '../kit/tell-user.js';
import { postQuorumProgress } from './post-quorum-progress.js';
import { tellRequesterExpired } from './handle-expired.js';
import { refreshHomesFor } from '../card/inbox-refresh.js';
import { recipientOf } from '../thread/answer-stream.js';
import { showRememberedCreated } from '../remembered/show-remembered-use.js';

/**
 * Shows the result of an approve/decline: the card redrawn when the request
 * changed, an ephemeral to the clicker when it did not (or when they should
 * know why), and the run's continuation in its thread. `card` is where the
 * request's card is, when the caller read it before deciding.
 */
export async function handleDecision(ctx: SlackContext, decision: Decision, click: ThreadTarget & Pick<Click, 'user' | 'teamId' | 'answerAt'>, card?: CardRow): Promise<void> {
  const refusal = refusalText(decision, click.user);
  if (refusal) {
    // Said in full on the card; from the inbox (or for a request without a card) only to someone who may see the request.
    const row = decision.outcome === 'not-found' ? undefined : decision.action;
    await tellUser(ctx, click, await refusalSeenBy(ctx, click, row, refusal, onItsCard(click, card)));
  }
  if (decision.outcome === 'not-found') return;

  const changed =
    decision.outcome === 'approved' ||
    decision.outcome === 'declined' ||
    (decision.outcome === 'approval-recorded' && !decision.alreadyCounted) ||
    ('stream' in decision && decision.stream !== undefined);
  // A click that found the request already expired redraws it too: the sweep may not have got there yet. So does
  // one on a card with no row that was decided already: it was posted without its location stored (see adoptCard).
  const drawn: DrawnMark[] = [];
  const final = (decision.outcome === 'approved' || decision.outcome === 'declined') && card ? { action: decision.action, card, marks: drawn } : undefined;
  const lost = decision.outcome === 'already-decided' && !card;
  const redrawn = changed || decision.outcome === 'expired' || lost ? { card: await updateCard(ctx, decision.action.id, final) } : undefined;
  if (changed || decision.outcome === 'expired') refreshHomesFor(ctx, decision.action);

  if (decision.outcome === 'approval-recorded' && !decision.alreadyCounted) await postQuorumProgress(ctx, decision.action, redrawn?.card ?? card);

  const stream = 'stream' in decision ? decision.stream : undefined;
  // This click found the request past its time and expired it (a stream means it did): the requester hears, once.
  if (decision.outcome === 'expired' && stream) await tellRequesterExpired(ctx, decision.action, redrawn?.card);
  if (!stream) return markCardsDrawn(ctx.slackDb, drawn);
  // From the inbox, a run without a card or thread (one started outside Slack) goes on where it was started, not where the click was.
  const target = await targetForAction(ctx, decision.action, click.answerAt === undefined ? click : undefined, redrawn);
  if (!target) {
    ctx.logger.info({ actionId: decision.action.id }, 'the run has no thread in Slack; it goes on without one');
    await stream.result;
    return;
  }
  await showRememberedCreated(ctx, target, decision);
  await runInThread(ctx, stream, target, { drawn, ...recipientOf(decision.action.requester, click) });
}
