import type { BlockElementAction, ButtonAction } from '@slack/bolt';
import { parseCardBlockId } from '../kit/action-ids.js';
import type { Click, SlackContext } from '../context.js';
import { questionOf, type AskUserQuestion, toolOf } from '../card/render-card.js';
import { clickedCard, tamperedButton } from '../card/button-check.js';
import { recordAnswer, showAnswer, type GoOnInThread, type RecordedAnswer } from './resume-from-slack.js';
import { tellUser } from '../kit/tell-user.js';
import { resumeSchemaFor } from '../../agent/tool.js';
import { parseButtonValue } from '../kit/button-value.js';
import { confirmationOf } from '../kit/form-fields.js';

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
