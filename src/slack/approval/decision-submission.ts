import type { Decision } from '../../agent/api-types.js';
import { actorOf, type Person, type SlackContext } from '../context.js';
import { findCard } from '../card/cards.js';
import { failureText } from '../kit/failure-text.js';
import { handleDecision } from './handle-decision.js';
import { tellUser } from '../kit/tell-user.js';

/** What a decision modal (decline reason, approve reason) carries back: the request, the arguments seen, the reason. */
export interface DecisionSubmission {
  actionId: number;
  fingerprintPrefix: string;
  reason?: string;
}

export interface RecordedDecision {
  actionId: number;
  decision: Decision;
}

/**
 * A decision modal's submission, up to its recorded decision: the metadata binds it to the
 * request and the arguments the person saw, and the runtime checks it as any decision. The run's
 * work waits for `startAfter`. Undefined (logged) when the metadata is not ours.
 */
export async function recordDecisionSubmission(
  ctx: SlackContext,
  submission: DecisionSubmission | undefined,
  who: Person,
  decision: 'approve' | 'decline',
  startAfter: Promise<void>,
): Promise<RecordedDecision | undefined> {
  if (!submission) {
    ctx.logger.warn({ user: who.user, decision }, 'decision modal submitted with metadata that is not ours');
    return undefined;
  }
  const decided = await ctx.agent.decideToolCall(
    {
      actionId: submission.actionId,
      fingerprint: submission.fingerprintPrefix,
      actor: actorOf(who),
      ...(submission.reason ? { reason: submission.reason } : {}),
      decision,
    },
    { startAfter },
  );
  ctx.logger.info({ actionId: submission.actionId, user: who.user, decision, outcome: decided.outcome }, 'decision modal submitted');
  return { actionId: submission.actionId, decision: decided };
}

/** Shows a recorded decision beside its card (the redraw, a refusal, the run's continuation). */
export async function showDecisionSubmission(ctx: SlackContext, who: Person, recorded: RecordedDecision | undefined): Promise<void> {
  if (!recorded) return;
  const { actionId, decision } = recorded;
  const card = await findCard(ctx.slackDb, actionId);
  if (!card) {
    // No card to answer beside (a request of a run nobody requested, decided from the inbox): the Home tab is told.
    ctx.logger.info({ actionId }, 'decision submitted for a request without a card');
    return handleDecision(ctx, decision, { ...who, channel: who.user, answerAt: 'home' });
  }
  await handleDecision(ctx, decision, { ...who, channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) }, card);
}

/** Tells the person, beside the card, that recording or showing their decision failed (with the log reference). */
export function tellDecisionSubmissionFailure(ctx: SlackContext, actionId: number | undefined, user: string): (ref: string) => Promise<void> {
  return async (ref) => {
    const card = actionId !== undefined ? await findCard(ctx.slackDb, actionId) : undefined;
    if (card) await tellUser(ctx, { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}), user }, failureText(ref));
  };
}
