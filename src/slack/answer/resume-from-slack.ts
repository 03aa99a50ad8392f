import { hasAgentErrorCode, type ResumeValidationError, type ToolCallNotPendingError } from '../../agent/errors.js';
import type { AgentStream } from '../../agent/api-types.js';
import type { Request } from '../../agent/request.js';
import { mention } from '../kit/mention.js';
import { showCardUpdate } from '../card/show-card-update.js';
import type { CardRow } from '../card/cards.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { describeOutcome } from '../card/button-check.js';
import { actorOf, type Person, type SlackContext, type ThreadTarget } from '../context.js';
import { tellUser } from '../kit/tell-user.js';

type ResumeOutcome = { ok: true } | { ok: false; message: string };

/** An answer recorded (its run's continuation ready to show), or why it was refused. */
export type RecordedAnswer =
  | { ok: true; stream: AgentStream; action: Request; who: ThreadTarget & Person }
  | { ok: false; message: string; who: ThreadTarget & Person };

/**
 * Gives a suspended tool (or askUser) its answer from Slack: checks who is
 * answering, lets the runtime validate and record the data (the continuation
 * waits for `startAfter`). Nothing is posted here: showAnswer does that, after
 * a click has been acknowledged.
 */
export async function recordAnswer(
  ctx: SlackContext,
  action: Request,
  data: unknown,
  who: ThreadTarget & Person,
  startAfter?: PromiseLike<unknown>,
): Promise<RecordedAnswer> {
  const refuse = (message: string): RecordedAnswer => ({ ok: false, message, who });
  if (action.kind !== 'suspension') return refuse('That is not a question or input request. Nothing was changed.');
  if (action.status !== 'pending') return refuse(`This request was ${describeOutcome(action)}. Nothing was changed.`);
  if (!(await mayAnswer(ctx, action, who))) {
    ctx.logger.info({ actionId: action.id, user: who.user }, 'answer refused: not the requester');
    const owner = action.requester ? mention(action.requester) : 'the person who started this run';
    return refuse(`Only ${owner} can answer this. Nothing was changed.`);
  }
  let stream;
  try {
    stream = await ctx.agent.resumeStream(data, { runId: action.rootRunId, actionId: action.id, actor: actorOf(who) }, startAfter ? { startAfter } : {});
  } catch (error) {
    if (hasAgentErrorCode(error, 'RESUME_DATA_INVALID')) {
      return refuse(`That answer does not fit: ${escapeMrkdwn((error as ResumeValidationError).issues.join('; '))}`);
    }
    if (hasAgentErrorCode(error, 'TOOL_CALL_NOT_PENDING') && (error as ToolCallNotPendingError).reason === 'not-allowed') {
      return refuse(`${escapeMrkdwn((error as ToolCallNotPendingError).detail ?? 'You may not answer this.')} Nothing was changed.`);
    }
    if (hasAgentErrorCode(error, 'TOOL_CALL_NOT_PENDING') || hasAgentErrorCode(error, 'SNAPSHOT_NOT_FOUND')) {
      return refuse('This was already answered or its run has ended. Nothing was changed.');
    }
    throw error;
  }
  ctx.logger.info({ actionId: action.id, user: who.user }, 'suspension resumed from Slack');
  return { ok: true, stream, action, who };
}

/** Where a reply is reacted to while the run that answer resumed works. */
interface ShowAnswerOptions {
  reactTo?: { channel: string; ts: string };
}

/**
 * How a run an answer resumed goes on in its thread, beside its card: the thread feature's to
 * give (app.ts passes it in), as answer/ draws the card but not the run.
 */
export type GoOnInThread = (
  ctx: SlackContext,
  answered: { stream: AgentStream; action: Request; who: ThreadTarget & Person },
  card: CardRow | undefined,
  options: ShowAnswerOptions,
) => Promise<void>;

/** Shows a recorded answer: the card redrawn with it and the run's continuation; a refusal goes to the person only. */
export async function showAnswer(ctx: SlackContext, recorded: RecordedAnswer, goOn: GoOnInThread, options: ShowAnswerOptions = {}): Promise<ResumeOutcome> {
  if (!recorded.ok) {
    await tellUser(ctx, recorded.who, recorded.message);
    return { ok: false, message: recorded.message };
  }
  const card = await showCardUpdate(ctx, recorded.action.id);
  await goOn(ctx, recorded, card, options);
  return { ok: true };
}

/** recordAnswer then showAnswer, for an answer that needs no acknowledgement first (a thread reply). */
export async function resumeFromSlack(
  ctx: SlackContext,
  action: Request,
  data: unknown,
  who: ThreadTarget & Person,
  goOn: GoOnInThread,
  options: ShowAnswerOptions = {},
): Promise<ResumeOutcome> {
  return showAnswer(ctx, await recordAnswer(ctx, action, data, who), goOn, options);
}

/**
 * Whether a Slack user may answer this question or suspended tool (or cancel
 * its run): the runtime's rule (Agent.mayAnswer), asked before anything is
 * shown, so a refusal can be explained. A group lookup that fails refuses.
 */
export async function mayAnswer(ctx: Pick<SlackContext, 'agent' | 'logger'>, action: Request, who: Person): Promise<boolean> {
  try {
    return (await ctx.agent.mayAnswer(action, actorOf(who))).allowed;
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: action.id, user: who.user }, 'could not check who may answer; refused');
    return false;
  }
}
