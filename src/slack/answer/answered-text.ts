import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import type { AnswerSummary } from '../card/card-types.js';
import { truncate, truncateMrkdwn } from '../kit/limits.js';
import { mention } from '../kit/mention.js';
import { oneLine } from '../kit/text-objects.js';
import { unreachable } from '../../unreachable.js';

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
