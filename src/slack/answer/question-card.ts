import type { ActionsBlockElement, Checkboxes, KnownBlock, MultiStaticSelect, PlainTextOption, RadioButtons, StaticSelect } from '@slack/types';
import { LIMITS, truncateMrkdwn } from '../kit/limits.js';
import { markdownToMrkdwn } from '../kit/mrkdwn/markdown-to-mrkdwn.js';
import { ACTION_IDS, cardBlockId } from '../kit/action-ids.js';
import { actionButtonValue } from '../kit/button-value.js';
import type { QuestionCardData, QuestionOption } from '../card/card-types.js';
import { fitMessage, scaled } from '../kit/fit-message.js';
import { context, section } from '../kit/layout.js';
import { mention } from '../kit/mention.js';
import { answeredText } from './answered-text.js';
import { oneLine, plainText } from '../kit/text-objects.js';
import { unreachable } from '../../unreachable.js';

/** Up to this many options render as radio buttons / checkboxes, beyond it as a menu. */
const INLINE_OPTIONS = LIMITS.radioOptions;
/** Questions longer than this are cut before conversion; the card could not show more anyway. */
const MAX_QUESTION_INPUT = 20_000;

/**
 * The askUser card. Option values are indexes, not labels: a label may be longer than an
 * option value may be, and the listener maps the index back to the exact label.
 */
export function questionCard(data: QuestionCardData): KnownBlock[] {
  const question = markdownToMrkdwn(data.question.slice(0, MAX_QUESTION_INPUT));
  return fitMessage((scale) => render(data, question, scale));
}

function render(d: QuestionCardData, converted: string, scale: number): KnownBlock[] {
  const heading = d.askedOf !== undefined ? `*Question for ${mention(d.askedOf)}*` : '*Question*';
  const question = truncateMrkdwn(converted, scaled(LIMITS.sectionText - 200, scale, 300));
  const blocks: KnownBlock[] = [section(`${heading}\n${question}`)];

  switch (d.state.kind) {
    case 'answered': {
      const answer = Array.isArray(d.state.answer) ? d.state.answer.join(', ') : d.state.answer;
      blocks.push(section(`:speech_balloon: ${answeredText({ kind: 'value', text: answer }, d.state.by, scaled(2000, scale, 200))}`));
      return blocks;
    }
    case 'cancelled':
      blocks.push(context(':heavy_multiplication_x: Cancelled'));
      return blocks;
    case 'pending':
      break;
    default:
      return unreachable(d.state, 'question card state');
  }

  const options = d.options ?? [];
  if (options.length === 0) {
    blocks.push(context('Reply in this thread to answer.'));
    return blocks;
  }

  const shown = options.slice(0, LIMITS.selectOptions);
  const hidden = options.length - shown.length;
  const labelMax = scaled(LIMITS.optionText, scale, 20);
  const inline = shown.length <= INLINE_OPTIONS;
  const menuOptions = shown.map((o, i) => toOption(o, i, labelMax, inline));
  const multi = d.selectionMode === 'multi_select';

  const elements: ActionsBlockElement[] = [];
  if (!multi && inline) {
    const radio: RadioButtons = { type: 'radio_buttons', action_id: ACTION_IDS.questionAnswer, options: menuOptions };
    elements.push(radio);
  } else if (!multi) {
    const select: StaticSelect = {
      type: 'static_select',
      action_id: ACTION_IDS.questionAnswer,
      placeholder: plainText('Choose an answer'),
      options: menuOptions,
    };
    elements.push(select);
  } else if (inline) {
    const boxes: Checkboxes = { type: 'checkboxes', action_id: ACTION_IDS.questionAnswer, options: menuOptions };
    elements.push(boxes);
  } else {
    const select: MultiStaticSelect = {
      type: 'multi_static_select',
      action_id: ACTION_IDS.questionAnswer,
      placeholder: plainText('Choose answers'),
      options: menuOptions,
    };
    elements.push(select);
  }
  if (multi) {
    elements.push({
      type: 'button',
      action_id: ACTION_IDS.questionSubmit,
      text: plainText('Submit'),
      style: 'primary',
      value: actionButtonValue(d.actionId),
    });
  }
  blocks.push({ type: 'actions', block_id: cardBlockId('question', d.actionId), elements });

  if (hidden > 0) {
    // Dropping options silently could hide the right answer; free text is accepted instead.
    blocks.push(context(`${hidden} more options are not shown — reply in this thread with your answer`));
  }
  return blocks;
}

function toOption(option: QuestionOption, index: number, labelMax: number, withDescription: boolean): PlainTextOption {
  const label = oneLine(option.label) === '' ? `Option ${index + 1}` : oneLine(option.label);
  const out: PlainTextOption = { text: plainText(label, labelMax), value: String(index) };
  const description = option.description?.trim();
  // Menus (static selects) do not show descriptions; only radio buttons and checkboxes do.
  if (withDescription && description) out.description = plainText(oneLine(description), LIMITS.optionDescription);
  return out;
}
