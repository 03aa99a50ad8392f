import { ResumeValidationError, SnapshotNotFoundError, ToolCallNotPendingError } from '../agent/errors.js';
import type { PendingAction } from '../db/pending-action.js';
import { mention } from './blocks/mention.js';
import { updateCard } from './cards/update-card.js';
import { escapeMrkdwn } from './escape-mrkdwn.js';
import { mayAnswer } from './may-answer.js';
import { describeOutcome } from './refusal-text.js';
import { runInThread } from './run-in-thread.js';
import type { SlackContext, ThreadTarget } from './slack-context.js';
import { targetForAction } from './target-for-action.js';
import { tellUser } from './tell-user.js';

export type ResumeOutcome = { ok: true } | { ok: false; message: string };

/**
 * Gives a suspended tool (or askUser) its answer from Slack: checks who is
 * answering, lets the runtime validate the data, redraws the card with the
 * answer and shows the continuation. Refusals go back to the person only.
 */
export async function resumeFromSlack(
  ctx: SlackContext,
  action: PendingAction,
  data: unknown,
  who: ThreadTarget & { user: string },
  options: { reactTo?: { channel: string; ts: string } } = {},
): Promise<ResumeOutcome> {
  const refuse = async (message: string): Promise<ResumeOutcome> => {
    await tellUser(ctx, who, message);
    return { ok: false, message };
  };
  if (action.kind !== 'suspension') return refuse('That is not a question or input request. Nothing was changed.');
  if (action.status !== 'pending') return refuse(`This request was ${describeOutcome(action)}. Nothing was changed.`);
  if (!(await mayAnswer(ctx.agent, action, who.user))) {
    ctx.logger.info({ actionId: action.id, user: who.user }, 'answer refused: not the requester');
    const owner = action.requester ? mention(action.requester) : 'the person who started this run';
    return refuse(`Only ${owner} can answer this. Nothing was changed.`);
  }
  let stream;
  try {
    stream = await ctx.agent.resumeStream(data, { runId: action.root_run_id, actionId: action.id, actor: { userId: who.user } });
  } catch (error) {
    if (error instanceof ResumeValidationError) {
      return refuse(`That answer does not fit: ${escapeMrkdwn(error.issues.join('; '))}`);
    }
    if (error instanceof ToolCallNotPendingError && error.reason === 'not-allowed') {
      return refuse(`${escapeMrkdwn(error.detail ?? 'You may not answer this.')} Nothing was changed.`);
    }
    if (error instanceof ToolCallNotPendingError || error instanceof SnapshotNotFoundError) {
      return refuse('This was already answered or its run has ended. Nothing was changed.');
    }
    throw error;
  }
  ctx.logger.info({ actionId: action.id, user: who.user }, 'suspension resumed from Slack');
  const card = await updateCard(ctx, action.id);
  const target = (await targetForAction(ctx, action, who, { card })) ?? who;
  await runInThread(ctx, stream, target, options);
  return { ok: true };
}
