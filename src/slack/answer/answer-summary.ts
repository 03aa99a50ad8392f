import type { AnswerSummary } from '../card/card-types.js';

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
