import { hasAgentErrorCode, type ResumeValidationError, type ToolCallNotPendingError } from '../../agent/errors.js';
import type { AgentStream } from '../../agent/api-types.js';
import type { Request } from '../../agent/request.js';
import { mention } from '../kit/mention.js';
import { showCardUpdate } from '../card/show-card-update.js';
import type { CardRow } from '../card/cards.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { describeOutcome, clickedCard, tamperedButton } from '../card/button-check.js';
import { actorOf, type Person, type SlackContext, type ThreadTarget, tellUser } from '../context.js';
import type { BlockElementAction, ButtonAction } from '@slack/bolt';
import { parseCardBlockId, parseButtonValue } from '../kit/action-ids.js';
import type { Click } from '../context.js';
import { questionOf, type AskUserQuestion, toolOf } from '../card/render-card.js';
import { resumeSchemaFor } from '../../agent/tool.js';
import { confirmationOf } from '../kit/form-fields.js';

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

/** What a choice came to: nothing to say (no clicker), a message for the clicker alone, or a recorded answer. */
type RecordedChoice = undefined | { tell: string; click: Click } | { answer: RecordedAnswer };

/**
 * Reads an askUser choice: the option values are indexes into the question's
 * options, mapped back to the exact labels here, and the answer is recorded
 * (its run's work waits for `startAfter`). Nothing is posted here.
 */
export async function recordChoice(
  ctx: SlackContext,
  click: Click | undefined,
  action: Pick<BlockElementAction, 'block_id' | 'action_id'>,
  selected: string[],
  multi: boolean,
  startAfter: Promise<void>,
  buttonActionId?: number,
): Promise<RecordedChoice> {
  if (!click) return undefined;
  const block = parseCardBlockId(action.block_id);
  const actionId = block?.kind === 'question' && (buttonActionId === undefined || buttonActionId === block.actionId) ? block.actionId : undefined;
  const checked = actionId === undefined ? false : await clickedCard(ctx, click, actionId);
  if (!checked) return tampered(ctx, click, action);
  const request = checked.state?.action;
  const question = request ? questionOf(ctx.agent, request) : undefined;
  if (!request || !question?.options) return tampered(ctx, click, action);

  const labels: string[] = [];
  for (const value of selected) {
    const option = /^\d{1,3}$/.test(value) ? question.options[Number(value)] : undefined;
    if (!option) return tampered(ctx, click, action);
    labels.push(option.label);
  }
  if (labels.length === 0) return { tell: multi ? 'Tick at least one option, then press Submit.' : 'Choose an option.', click };
  const data = question.selectionMode === 'multi_select' ? labels : labels[0];
  return { answer: await recordAnswer(ctx, request, data, click, startAfter) };
}

/** Shows a recorded choice (the card and the run's continuation), or tells the clicker why it was not taken. */
export async function showChoice(ctx: SlackContext, recorded: RecordedChoice, goOn: GoOnInThread): Promise<void> {
  if (!recorded) return;
  if ('tell' in recorded) return tellUser(ctx, recorded.click, recorded.tell);
  await showAnswer(ctx, recorded.answer, goOn);
}

function tampered(ctx: SlackContext, click: Click, action: Pick<BlockElementAction, 'block_id' | 'action_id'>): RecordedChoice {
  ctx.logger.warn({ user: click.user, actionId: action.action_id, blockId: action.block_id }, 'question answer refused: does not match a card');
  return { tell: tamperedButton, click };
}

/**
 * Reads a thread reply as an answer to an askUser question: free text as is;
 * for options, a label (any case) or its number, several separated by commas
 * for multi-select (each option once). What matches nothing is passed on unchanged, so the
 * runtime's validation can say what would have fitted.
 */
export function answerFromText(question: AskUserQuestion, text: string): string | string[] {
  const options = question.options;
  if (!options) return text;
  const pick = (part: string): string => {
    const wanted = part.trim();
    const byLabel = options.find((o) => o.label.trim().toLowerCase() === wanted.toLowerCase());
    if (byLabel) return byLabel.label;
    const n = /^\d{1,3}$/.test(wanted) ? options[Number(wanted) - 1] : undefined;
    return n ? n.label : wanted;
  };
  if (question.selectionMode === 'multi_select') {
    const whole = options.find((o) => o.label.trim().toLowerCase() === text.trim().toLowerCase());
    if (whole) return [whole.label];
    // "1, 1" names one option once: the answer lists each option at most once.
    return [...new Set(text.split(/[,\n]/).map((p) => p.trim()).filter((p) => p !== '').map(pick))];
  }
  return pick(text);
}

/**
 * Yes or No on a suspension card whose resume schema is one boolean: the button must be this
 * card's, and the answer goes through recordAnswer like a Respond submission (the same
 * mayAnswer check, the same conditional record), so a second click, or a click on a card
 * already answered, is told so and resumes nothing. Nothing is posted here.
 */
export async function recordConfirmation(
  ctx: SlackContext,
  click: Click | undefined,
  action: Pick<ButtonAction, 'value' | 'block_id' | 'action_id'>,
  yes: boolean,
  startAfter: Promise<void>,
): Promise<RecordedChoice> {
  if (!click) return undefined;
  const value = parseButtonValue(action.value);
  const block = parseCardBlockId(action.block_id);
  const checked = value && block?.kind === 'suspension' && block.actionId === value.actionId ? await clickedCard(ctx, click, value.actionId) : false;
  const request = checked ? checked.state?.action : undefined;
  const tool = request?.kind === 'suspension' ? toolOf(ctx.agent, request) : undefined;
  const confirmation = tool && request ? confirmationOf(resumeSchemaFor(tool, request.args)) : undefined;
  if (!request || !confirmation) {
    ctx.logger.warn({ user: click.user, actionId: action.action_id, blockId: action.block_id }, 'confirmation refused: does not match a card');
    return { tell: tamperedButton, click };
  }
  return { answer: await recordAnswer(ctx, request, confirmation.answer(yes), click, startAfter) };
}
