import type { KnownBlock, PlainTextOption, InputBlock } from '@slack/types';
import type { z } from 'zod';
import type { ElicitationField } from '../../mcp/elicitation-payload.js';
import { formLabel } from './describe-args.js';
import type { FormEntry } from './form-fields.js';
import { LIMITS, truncate, oneLine, plainText } from './limits.js';
import { humanList } from './mention.js';
import type { InputState, ViewStateValues } from './submitted-payloads.js';
import { MAX_REASON_LENGTH } from '../../approvals/reason-limit.js';

/** Every input of a form uses this action id; its block id says which field it is. */
const FORM_INPUT_ACTION_ID = 'value';

/** Radio buttons up to this many options, a menu beyond (checkboxes likewise for multi-enums). */
const RADIO_MAX = 5;

/** Which block holds which field: by position (`f<index>`), or by name for a form whose errors name fields. */
type FieldBlockId = (entry: FormEntry, index: number) => string;

export const blockIdByIndex: FieldBlockId = (_entry, index) => `f${index}`;

/** The field's name, which is what `response_action: 'errors'` reports against; a name too long keeps a prefix and its position. */
export const blockIdByName: FieldBlockId = ({ name }, index) => {
  if (name === '') return `#${index}`;
  return name.length <= LIMITS.blockId ? name : `${name.slice(0, LIMITS.blockId - 12)}#${index}`;
};

/** An enum with more options than a menu holds is typed, and checked against its values on submit. */
function enumAsText(field: ElicitationField): boolean {
  return field.type === 'enum' && field.options.length > LIMITS.selectOptions;
}

/** The label and hint a field is shown with (see formLabel), with the values of an enum typed as text. */
export function fieldText(entry: FormEntry): { label: string; hint?: string } {
  const { label, hint } = formLabel(entry.name, entry.field);
  const parts = hint ? [hint] : [];
  if (entry.field.type === 'enum' && enumAsText(entry.field)) {
    parts.push(`One of: ${humanList(entry.field.options.map((o) => o.value), { conjunction: 'or', maxChars: 1500, noun: 'values' })}`);
  }
  return { label: oneLine(label) || entry.name || '—', ...(parts.length > 0 ? { hint: parts.join(' — ') } : {}) };
}

/**
 * The Block Kit element for a field: `number_input` (min/max, decimals only for `number`),
 * `email_text_input`, `url_text_input`, `datepicker`, `datetimepicker`, text; a boolean as
 * Yes/No; an enum as radio buttons (≤ 5 options), a menu, or text past a menu's 100 options;
 * a multi-enum as checkboxes (≤ 10) or a multi-select. Option values are indexes (labels may be
 * longer than a value may be); readField maps them back. Defaults become initial values.
 * Option labels are cut to `labelMax` (a card of a hundred options must still fit a message).
 */
export function fieldElement(field: ElicitationField, actionId: string, labelMax: number = LIMITS.optionText): Record<string, unknown> {
  switch (field.type) {
    case 'number':
    case 'integer':
      return {
        type: 'number_input',
        action_id: actionId,
        is_decimal_allowed: field.type === 'number',
        ...(field.minimum !== undefined ? { min_value: String(field.minimum) } : {}),
        ...(field.maximum !== undefined ? { max_value: String(field.maximum) } : {}),
        ...(field.default !== undefined ? { initial_value: String(field.default) } : {}),
      };
    case 'boolean':
      return {
        type: 'radio_buttons',
        action_id: actionId,
        options: [yes, no],
        ...(field.default !== undefined ? { initial_option: field.default ? yes : no } : {}),
      };
    case 'enum': {
      if (enumAsText(field)) {
        return { type: 'plain_text_input', action_id: actionId, max_length: LIMITS.plainTextInputMaxLength, ...(field.default ? { initial_value: truncate(field.default, LIMITS.plainTextInputInitial) } : {}) };
      }
      const options = field.options.map((o, i) => option(o.label, i, labelMax));
      const initial = field.default === undefined ? undefined : options[field.options.findIndex((o) => o.value === field.default)];
      return {
        type: options.length <= RADIO_MAX ? 'radio_buttons' : 'static_select',
        action_id: actionId,
        ...(options.length > RADIO_MAX ? { placeholder: plainText('Choose…') } : {}),
        options,
        ...(initial ? { initial_option: initial } : {}),
      };
    }
    case 'multi-enum': {
      const options = field.options.slice(0, LIMITS.selectOptions).map((o, i) => option(o.label, i, labelMax));
      const initial = (field.default ?? []).map((d) => options[field.options.findIndex((o) => o.value === d)]).filter((o) => o !== undefined);
      const boxes = options.length <= LIMITS.checkboxOptions;
      return {
        type: boxes ? 'checkboxes' : 'multi_static_select',
        action_id: actionId,
        ...(boxes ? {} : { placeholder: plainText('Choose…') }),
        options,
        ...(initial.length > 0 ? { initial_options: initial } : {}),
        ...(!boxes && field.maxItems !== undefined ? { max_selected_items: field.maxItems } : {}),
      };
    }
    case 'string':
      switch (field.format) {
        case 'email':
          return { type: 'email_text_input', action_id: actionId, ...(field.default ? { initial_value: field.default } : {}) };
        case 'uri':
          return { type: 'url_text_input', action_id: actionId, ...(field.default ? { initial_value: field.default } : {}) };
        case 'date':
          return { type: 'datepicker', action_id: actionId, ...(field.default && /^\d{4}-\d{2}-\d{2}$/.test(field.default) ? { initial_date: field.default } : {}) };
        case 'date-time': {
          const at = field.default ? Date.parse(field.default) : Number.NaN;
          return { type: 'datetimepicker', action_id: actionId, ...(Number.isFinite(at) ? { initial_date_time: Math.floor(at / 1000) } : {}) };
        }
        default:
          return {
            type: 'plain_text_input',
            action_id: actionId,
            max_length: textMaxLength(field),
            ...(field.minLength !== undefined ? { min_length: Math.min(field.minLength, LIMITS.plainTextInputMaxLength) } : {}),
            ...(field.default ? { initial_value: truncate(field.default, LIMITS.plainTextInputInitial) } : {}),
          };
      }
  }
}

/** Whether the field's element is a text-like input (an `input` block) rather than one that fits an `actions` block. */
export function isTypedInput(field: ElicitationField): boolean {
  if (field.type === 'number' || field.type === 'integer' || enumAsText(field)) return true;
  return field.type === 'string' && field.format !== 'date' && field.format !== 'date-time';
}

/** A modal's input block for one field: its label, its hint, its element. */
export function fieldInput(entry: FormEntry, blockId: string): KnownBlock {
  const { label, hint } = fieldText(entry);
  return {
    type: 'input',
    block_id: blockId,
    optional: !entry.required,
    label: plainText(label, LIMITS.inputLabel),
    element: fieldElement(entry.field, FORM_INPUT_ACTION_ID),
    ...(hint ? { hint: plainText(hint, LIMITS.inputHint) } : {}),
  } as unknown as KnownBlock;
}

type ReadField = { ok: true; value: string | number | boolean | string[] | undefined } | { ok: false; error: string };

/** A field's answer from its element's state, checked against the field (required, min/max, formats, options). */
export function readField(field: ElicitationField, required: boolean, state: InputState | undefined): ReadField {
  const missing = (): ReadField => (required ? { ok: false, error: 'This field is required.' } : { ok: true, value: undefined });
  switch (field.type) {
    case 'number':
    case 'integer': {
      const raw = (state?.value ?? '').trim();
      if (raw === '') return missing();
      const n = Number(raw);
      if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return { ok: false, error: field.type === 'integer' ? 'Enter a whole number.' : 'Enter a number.' };
      if (field.minimum !== undefined && n < field.minimum) return { ok: false, error: `Enter at least ${field.minimum}.` };
      if (field.maximum !== undefined && n > field.maximum) return { ok: false, error: `Enter at most ${field.maximum}.` };
      return { ok: true, value: n };
    }
    case 'boolean': {
      const raw = state?.selected_option?.value;
      if (raw === undefined) return missing();
      return raw === 'true' || raw === 'false' ? { ok: true, value: raw === 'true' } : { ok: false, error: 'Choose Yes or No.' };
    }
    case 'enum': {
      if (enumAsText(field)) {
        const raw = (state?.value ?? '').trim();
        if (raw === '') return missing();
        const chosen = field.options.find((o) => o.value === raw);
        return chosen ? { ok: true, value: chosen.value } : { ok: false, error: truncate(`Choose one of: ${humanList(field.options.map((o) => o.value), { conjunction: 'or', maxChars: 200, noun: 'values' })}`, 250) };
      }
      const raw = state?.selected_option?.value;
      if (raw === undefined) return missing();
      const chosen = /^\d{1,3}$/.test(raw) ? field.options[Number(raw)] : undefined;
      return chosen ? { ok: true, value: chosen.value } : { ok: false, error: 'Choose one of the options.' };
    }
    case 'multi-enum': {
      const raw = (state?.selected_options ?? []).map((o) => o.value ?? '');
      if (raw.length === 0) return required || (field.minItems ?? 0) > 0 ? { ok: false, error: 'Choose at least one option.' } : { ok: true, value: undefined };
      const values = raw.map((v) => (/^\d{1,3}$/.test(v) ? field.options[Number(v)]?.value : undefined));
      if (values.some((v) => v === undefined)) return { ok: false, error: 'Choose among the options.' };
      // Each option once, so never more than the field has: a repeated one is not a choice anyone made.
      if (new Set(values).size !== values.length) return { ok: false, error: 'Choose each option at most once.' };
      if (field.minItems !== undefined && values.length < field.minItems) return { ok: false, error: `Choose at least ${field.minItems}.` };
      if (field.maxItems !== undefined && values.length > field.maxItems) return { ok: false, error: `Choose at most ${field.maxItems}.` };
      return { ok: true, value: values as string[] };
    }
    case 'string': {
      if (field.format === 'date') return state?.selected_date ? { ok: true, value: state.selected_date } : missing();
      if (field.format === 'date-time') {
        const at = state?.selected_date_time;
        return typeof at === 'number' ? { ok: true, value: new Date(at * 1000).toISOString() } : missing();
      }
      const raw = state?.value ?? '';
      if (raw.trim() === '') return missing();
      if (field.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(raw.trim())) return { ok: false, error: 'Enter an email address.' };
      if (field.format === 'uri' && !URL.canParse(raw.trim())) return { ok: false, error: 'Enter a full URL (https://…).' };
      if (field.minLength !== undefined && raw.length < field.minLength) return { ok: false, error: `Enter at least ${field.minLength} characters.` };
      // The input's own bound (the field's, within Slack's): Slack's UI keeps to it, a forged submission may not.
      const max = textMaxLength(field);
      if (raw.length > max) return { ok: false, error: `Enter at most ${max} characters.` };
      return { ok: true, value: field.format ? raw.trim() : raw };
    }
  }
}

type FormContent = Record<string, string | number | boolean | string[]>;
export type ReadForm = { ok: true; content: FormContent } | { ok: false; errors: Record<string, string> };

/**
 * A submitted form's values, typed as its fields describe them and, given the schema the form was
 * made from, checked against it: errors by block id, ready for `response_action: 'errors'` (an
 * error that names no field shown beside the first). Fields left empty and optional are left out.
 */
export function readForm(entries: readonly FormEntry[], values: ViewStateValues, blockIdOf: FieldBlockId, schema?: z.ZodType): ReadForm {
  const content: FormContent = {};
  const errors: Record<string, string> = {};
  entries.forEach((entry, i) => {
    const read = readField(entry.field, entry.required, values[blockIdOf(entry, i)]?.[FORM_INPUT_ACTION_ID]);
    if (!read.ok) errors[blockIdOf(entry, i)] = read.error;
    else if (read.value !== undefined) content[entry.name] = read.value;
  });
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const checked = schema?.safeParse(content);
  if (checked && !checked.success && entries.length > 0) {
    for (const issue of checked.error.issues) {
      const i = Math.max(0, entries.findIndex((e) => e.name === issue.path[0]));
      errors[blockIdOf(entries[i]!, i)] ??= issue.message;
    }
    return { ok: false, errors };
  }
  return { ok: true, content };
}

/** The `max_length` a text field's input declares: the field's own, within what a Slack input holds. */
function textMaxLength(field: Extract<ElicitationField, { type: 'string' }>): number {
  return Math.min(field.maxLength ?? LIMITS.plainTextInputMaxLength, LIMITS.plainTextInputMaxLength);
}

const yes: PlainTextOption = { text: plainText('Yes'), value: 'true' };
const no: PlainTextOption = { text: plainText('No'), value: 'false' };

function option(label: string, index: number, max: number): PlainTextOption {
  return { text: plainText(oneLine(label), max), value: String(index) };
}

/**
 * Decline's reason field, shared by the single card's Decline (approval/) and the batch's
 * Decline all (batch/): in kit/ so that neither feature imports the other.
 */
export const DECLINE_REASON_BLOCK_ID = 'reason';
export const DECLINE_REASON_ACTION_ID = 'reason';

/** The optional reason field of a decline modal (Decline and Decline all): it goes to the model. */
export function declineReasonInput(): InputBlock {
  return {
    type: 'input',
    block_id: DECLINE_REASON_BLOCK_ID,
    optional: true,
    label: plainText('Reason'),
    element: {
      type: 'plain_text_input',
      action_id: DECLINE_REASON_ACTION_ID,
      multiline: true,
      max_length: MAX_REASON_LENGTH,
      placeholder: plainText('Why not? (optional)', LIMITS.placeholder),
    },
  };
}
