import type { Decision } from '../../agent/types.js';
import { parseDeclineModal } from '../blocks/decline-modal.js';
import type { SlackContext } from '../slack-context.js';
import { findCard } from '../store/cards.js';
import { failureText } from './failure-text.js';
import { handleDecision } from './handle-decision.js';
import { tellUser } from './tell-user.js';

type DeclineView = { private_metadata: string; state: { values: Parameters<typeof parseDeclineModal>[1] } };

/**
 * The decline modal's submission, up to its recorded decision: the reason goes
 * to the model, and the metadata binds the decline to the request and the
 * arguments the decliner saw. The run's work waits for `startAfter`.
 */
export async function recordDeclineSubmission(
  ctx: SlackContext,
  view: DeclineView,
  user: string,
  startAfter: Promise<void>,
): Promise<{ actionId: number; decision: Decision } | undefined> {
  const submission = parseDeclineModal(view.private_metadata, view.state.values);
  if (!submission) {
    ctx.logger.warn({ user }, 'decline modal submitted with metadata that is not ours');
    return undefined;
  }
  const decision = await ctx.agent.decideToolCall(
    {
      actionId: submission.actionId,
      fingerprint: submission.fingerprintPrefix,
      actor: { userId: user },
      ...(submission.reason ? { reason: submission.reason } : {}),
      decision: 'decline',
    },
    { startAfter },
  );
  ctx.logger.info({ actionId: submission.actionId, user, outcome: decision.outcome }, 'decline submitted');
  return { actionId: submission.actionId, decision };
}

/** Shows a recorded decline beside its card (the redraw, a refusal, the run's continuation). */
export async function showDeclineSubmission(ctx: SlackContext, user: string, recorded: { actionId: number; decision: Decision } | undefined): Promise<void> {
  if (!recorded) return;
  const { actionId, decision } = recorded;
  const card = await findCard(ctx.slackDb, actionId);
  if (!card) {
    // No card to answer beside (a forged submission, most likely): the decision still stands or was refused.
    ctx.logger.warn({ actionId }, 'decline submitted for a request without a card');
    if ('stream' in decision && decision.stream) await decision.stream.result;
    return;
  }
  await handleDecision(ctx, decision, { user, channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) }, card);
}

/** Tells the decliner, beside the card, that recording or showing the decline failed (with the log reference). */
export function tellDeclineFailure(ctx: SlackContext, view: DeclineView, user: string): (ref: string) => Promise<void> {
  return async (ref) => {
    const actionId = parseDeclineModal(view.private_metadata, view.state.values)?.actionId;
    const card = actionId !== undefined ? await findCard(ctx.slackDb, actionId) : undefined;
    if (card) await tellUser(ctx, { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}), user }, failureText(ref));
  };
}
