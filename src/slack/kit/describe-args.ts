import type { JSONSchema7, JSONSchema7Definition } from '@ai-sdk/provider';
import type { KnownBlock, MrkdwnElement } from '@slack/types';
import { escapeMrkdwn } from './mrkdwn/escape-mrkdwn.js';
import { LIMITS, truncate, truncateMrkdwn, scaled, section } from './limits.js';
import { formatArgValue, isMoneyInCents, humanizeKey, humanizeWords } from './format-arg-value.js';

/** A label (plain words) and its value (mrkdwn, already escaped) as a card shows them. */
interface CardField {
  label: string;
  value: string;
}

/** A call as its card describes it: every string already safe to put in mrkdwn. */
interface CardDescription {
  /** Plain text (headers are plain_text, never parsed). */
  title: string;
  fields: CardField[];
}

/**
 * A call in words wherever it is listed: its description, and whether the title is the tool's
 * own (a describe() title says what the call does; a default one is only the tool's name in
 * words, so a one-line listing adds the arguments to it).
 */
export interface CallInWords extends CardDescription {
  own: boolean;
}

/** A call's fields on one line, as its card's fields read ("*Amount* $5.00 · *Order* 1044"): labels escaped here, values mrkdwn already. */
export function callFieldsLine(fields: readonly CardField[]): string {
  return fields.map((f) => `*${escapeMrkdwn(truncate(f.label, LABEL_CHARS))}* ${f.value.replace(/\s*\n+\s*/g, ' ')}`).join(' · ');
}

/**
 * A call's fields as label/value pairs: a section's two-column `fields` when they fit Slack's
 * limits (10 fields, 2000 characters each), else one text list, cut to the section's limit.
 * Values are mrkdwn already; labels are escaped here (a key the model made up is a label too).
 */
export function callFieldBlocks(fields: readonly CardField[], scale: number): KnownBlock[] {
  if (fields.length === 0) return [];
  const valueBudget = scaled(LIMITS.sectionFieldText - 100, scale, 150);
  const asField = fields.map((f) => `*${escapeMrkdwn(f.label)}*\n${f.value}`);
  if (fields.length <= LIMITS.sectionFields && asField.every((text) => text.length <= valueBudget)) {
    const elements: MrkdwnElement[] = asField.map((text) => ({ type: 'mrkdwn', text, verbatim: true }));
    return [{ type: 'section', fields: elements }];
  }
  const list = fields.map((f) => `*${escapeMrkdwn(f.label)}:* ${f.value.replace(/\n+/g, ' ')}`).join('\n');
  return [section(truncateMrkdwn(list, scaled(LIMITS.sectionText - 200, scale, 300)))];
}

/** The parts of a tool's own `describe(args)` the card uses (plain text from the tool's code). */
interface OwnDescription {
  title: string;
  fields: ReadonlyArray<{ label: string; value: string }>;
}

const MAX_FIELDS = 40;
const LABEL_CHARS = 80;
const VALUE_CHARS = 1000;

/**
 * The default description of a call, from its arguments and the tool's input JSON Schema: the
 * tool's name in words, one field per top-level argument labelled by the schema's `title`, else
 * its short `description`, else the key in words.
 */
export function describeArgs(toolName: string, args: unknown, schema?: JSONSchema7): CardDescription {
  const title = humanizeWords(toolName);
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return args === undefined ? { title, fields: [] } : { title, fields: [{ label: 'Arguments', value: formatArgValue(args, { key: 'arguments' }) }] };
  }
  const record = args as Record<string, unknown>;
  const properties = propertiesOf(schema);
  // Schema order first (how the tool's author wrote it), then anything else the call holds.
  const keys = [...Object.keys(properties).filter((k) => Object.hasOwn(record, k)), ...Object.keys(record).filter((k) => !Object.hasOwn(properties, k))];
  const fields: CardField[] = [];
  for (const key of keys) {
    const value = record[key];
    if (value === undefined) continue;
    if (fields.length === MAX_FIELDS) {
      fields.push({ label: 'More', value: `${keys.length - MAX_FIELDS} more arguments (Show arguments has them all)` });
      break;
    }
    const prop = properties[key];
    fields.push({
      label: truncate(labelOf(key, prop), LABEL_CHARS),
      value: formatArgValue(value, { key, schema: prop, currency: record.currency, maxChars: VALUE_CHARS }),
    });
  }
  return { title, fields };
}

/** A tool's own description made safe for mrkdwn: its values may carry what the model wrote. */
export function escapeOwnDescription(own: OwnDescription): CardDescription {
  return {
    title: truncate(own.title.trim(), 300),
    fields: own.fields.slice(0, MAX_FIELDS).map((f) => ({
      label: truncate(f.label.trim() === '' ? '—' : f.label.trim(), LABEL_CHARS),
      value: escapeMrkdwn(truncate(f.value.trim() === '' ? '—' : f.value, VALUE_CHARS)),
    })),
  };
}

function propertiesOf(schema: JSONSchema7 | undefined): Record<string, JSONSchema7 | undefined> {
  const out: Record<string, JSONSchema7 | undefined> = {};
  const props = schema?.properties;
  if (!props || typeof props !== 'object') return out;
  for (const [key, definition] of Object.entries(props)) out[key] = schemaOf(definition);
  return out;
}

function schemaOf(definition: JSONSchema7Definition | undefined): JSONSchema7 | undefined {
  return typeof definition === 'object' && definition !== null ? definition : undefined;
}

/** What a label is made from: a JSON Schema property, or a form field (both may carry a title and a description). */
interface Described {
  title?: unknown;
  description?: unknown;
}

/**
 * The one name an argument or form field is shown with, on a card, in the inbox, in an edit's
 * diff and in every form: the schema's title, else its description when short (first clause,
 * no "The"), else the key in words with acronyms kept ("Order ID"). A unit the value shows
 * (money in cents, drawn as "$12.50") is left out of it.
 */
export function labelOf(key: string, prop: Described | undefined): string {
  if (typeof prop?.title === 'string' && prop.title.trim() !== '') return prop.title.trim();
  return shortDescription(prop?.description)?.label ?? humanizeKey(key);
}

/**
 * A field's label and hint in a form, where a value is typed as it is stored: the same label as
 * the card's, with "(cents)" when the card would show the number as money; the description is the
 * hint unless the label already says all of it.
 */
export function formLabel(key: string, prop: Described | undefined): { label: string; hint?: string } {
  const label = labelOf(key, prop);
  const description = typeof prop?.description === 'string' ? prop.description.trim() : '';
  const unit = isMoneyInCents(key, { description }) && !/\bcents?\b/i.test(label) ? ' (cents)' : '';
  const titled = typeof prop?.title === 'string' && prop.title.trim() !== '';
  const saysAll = !titled && shortDescription(description)?.whole === true;
  return { label: `${label}${unit}`, ...(description !== '' && !saysAll ? { hint: description } : {}) };
}

function shortDescription(description: unknown): { label: string; whole: boolean } | undefined {
  if (typeof description !== 'string') return undefined;
  const text = description.trim();
  const first = text.split(/[,:;.(\n]|\s+e\.g\.?|\s+-\s+/)[0]?.trim() ?? '';
  const clause = first.replace(/^(the|a|an)\s+/i, '').replace(/\s+in\s+(cents|minor units)$/i, '').trim();
  if (clause === '' || clause.length > 40) return undefined;
  return { label: clause.charAt(0).toUpperCase() + clause.slice(1), whole: first === text.replace(/[.!]+$/, '').trim() };
}
