import type { ActionsBlockElement, Checkboxes, KnownBlock, MultiStaticSelect, PlainTextOption, RadioButtons, StaticSelect } from '@slack/types';
import { LIMITS, truncateMrkdwn, truncate, fitMessage, scaled, context, section, oneLine, plainText } from '../kit/limits.js';
import { markdownToMrkdwn } from '../kit/mrkdwn/markdown-to-mrkdwn.js';
import { ACTION_IDS, cardBlockId, actionButtonValue } from '../kit/action-ids.js';
import type { QuestionCardData, QuestionOption, SuspensionCardData, AnswerSummary } from './card-types.js';
import { mention } from '../kit/mention.js';
import { unreachable } from '../../unreachable.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { jsonCodeBlock } from '../kit/format-arg-value.js';

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
  return fitMessage((scale) => renderQuestion(data, question, scale));
}

function renderQuestion(d: QuestionCardData, converted: string, scale: number): KnownBlock[] {
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

/**
 * The card for a tool that suspended itself: what it is waiting for (its payload), and how to
 * answer – a Respond button when a form can be built, a thread reply otherwise or as well.
 */
export function suspensionCard(data: SuspensionCardData): KnownBlock[] {
  return fitMessage((scale) => renderSuspension(data, scale));
}

/** The payload keys a tool puts what it asks a human in, in the order they are looked for. */
const QUESTION_KEYS = ['message', 'question', 'prompt'] as const;

/** A string `message` (or `question`, `prompt`) in the payload is what the tool wants a human to read; the rest is detail. */
export function splitPayload(payload: unknown): { message?: string; rest: unknown; hasRest: boolean } {
  if (typeof payload === 'string') return { message: payload, rest: undefined, hasRest: false };
  if (payload === undefined || payload === null) return { rest: undefined, hasRest: false };
  if (typeof payload === 'object' && !Array.isArray(payload)) {
    const record = payload as Record<string, unknown>;
    const key = QUESTION_KEYS.find((k) => typeof record[k] === 'string');
    if (key !== undefined) {
      const { [key]: message, ...rest } = record;
      return { message: message as string, rest, hasRest: Object.keys(rest).length > 0 };
    }
  }
  return { rest: payload, hasRest: true };
}

function renderSuspension(d: SuspensionCardData, scale: number): KnownBlock[] {
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText(oneLine(`Input needed: ${d.toolName}`), LIMITS.headerText) }];

  if (d.path.length > 1) {
    const path = [...d.path, d.toolName].map((step) => escapeMrkdwn(truncate(step, 80))).join(' → ');
    blocks.push(section(`*Path:* ${truncateMrkdwn(path, scaled(600, scale, 120))}`));
  }

  const { message, rest, hasRest } = splitPayload(d.payload);
  if (message !== undefined && message.trim() !== '') {
    blocks.push(section(escapeMrkdwn(truncate(message, scaled(LIMITS.sectionText - 200, scale, 300)))));
  }
  if (hasRest) {
    const details = jsonCodeBlock(rest, scaled(LIMITS.sectionText - 200, scale, 300));
    blocks.push(section(details.text));
    if (details.truncated) {
      blocks.push(
        context(`Details truncated: showing ${details.shown.toLocaleString('en-US')} of ${details.total.toLocaleString('en-US')} characters`),
      );
    }
  }

  switch (d.state.kind) {
    case 'pending':
      if (d.confirmation) {
        blocks.push({
          type: 'actions',
          block_id: cardBlockId('suspension', d.actionId),
          elements: [
            { type: 'button', action_id: ACTION_IDS.suspensionYes, text: plainText('Yes'), style: 'primary', value: actionButtonValue(d.actionId) },
            { type: 'button', action_id: ACTION_IDS.suspensionNo, text: plainText('No'), value: actionButtonValue(d.actionId) },
          ],
        });
        if (d.autoResume) blocks.push(context('…or reply in this thread'));
      } else if (d.respondable) {
        blocks.push({
          type: 'actions',
          block_id: cardBlockId('suspension', d.actionId),
          elements: [
            {
              type: 'button',
              action_id: ACTION_IDS.suspensionRespond,
              text: plainText('Respond'),
              style: 'primary',
              value: actionButtonValue(d.actionId),
            },
          ],
        });
        if (d.autoResume) blocks.push(context('…or reply in this thread'));
      } else {
        blocks.push(context('Reply in this thread to continue.'));
      }
      break;
    case 'answered':
      blocks.push(section(`:speech_balloon: ${answeredText(d.state.answer, d.state.by, scaled(2000, scale, 200))}`));
      break;
    case 'cancelled':
      blocks.push(context(':heavy_multiplication_x: Cancelled'));
      break;
    default:
      return unreachable(d.state, 'suspension card state');
  }
  return blocks;
}

/** A value longer than this, or on several lines, goes under the "Answered by" line instead of inside it. */
const INLINE_VALUE = 150;

/**
 * "Answered *No* by @alice", or "Answered by @alice:" over the label/value pairs of a
 * structured answer. Every value and label is escaped; `maxChars` bounds what the answer adds.
 */
export function answeredText(answer: AnswerSummary, by: string, maxChars: number): string {
  const who = mention(by);
  switch (answer.kind) {
    case 'none':
      return `Answered by ${who}`;
    case 'value': {
      const text = answer.text.trim();
      if (text === '') return `Answered by ${who} (no answer)`;
      if (text.length <= INLINE_VALUE && !text.includes('\n')) return `Answered *${escapeMrkdwn(oneLine(text).replace(/\*/g, '∗'))}* by ${who}`;
      return `Answered by ${who}:\n${escapeMrkdwn(truncate(text, maxChars))}`;
    }
    case 'pairs': {
      const per = Math.max(40, Math.floor(maxChars / Math.max(1, answer.pairs.length)));
      const lines = answer.pairs.map((p) => `${escapeMrkdwn(truncate(oneLine(p.label), 100))}: ${escapeMrkdwn(truncate(p.value, per))}`);
      return `Answered by ${who}:\n${truncateMrkdwn(lines.join('\n'), maxChars + 200)}`;
    }
    default:
      return unreachable(answer, 'answer summary');
  }
}

/**
 * What an answer said, in words: a bare value or a one-field yes/no answer as one value
 * (booleans as Yes / No), a structured answer as label/value pairs, labelled by `labelOf`
 * (the resume schema's titles). Plain text; the card escapes it.
 */
export function summariseAnswer(data: unknown, labelOf: (key: string) => string): AnswerSummary {
  if (data === undefined || data === null) return { kind: 'none' };
  if (typeof data !== 'object' || Array.isArray(data)) return { kind: 'value', text: valueText(data) };
  const entries = Object.entries(data as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return { kind: 'none' };
  if (entries.length === 1 && typeof entries[0]![1] === 'boolean') return { kind: 'value', text: valueText(entries[0]![1]) };
  return { kind: 'pairs', pairs: entries.map(([key, value]) => ({ label: labelOf(key), value: valueText(value) })) };
}

function valueText(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return '(none)';
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) return value.map(valueText).join(', ');
  return JSON.stringify(value) ?? String(value);
}
