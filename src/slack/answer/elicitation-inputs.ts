import type { PlainTextOption } from '@slack/types';
import type { ElicitationField } from '../../mcp/elicitation-payload.js';
import { LIMITS, truncate } from '../kit/limits.js';
import { oneLine, plainText } from '../kit/text-objects.js';
import type { InputState } from '../kit/submitted-payloads.js';


/** Radio buttons up to this many options, a menu beyond (checkboxes likewise for multi-enums). */
const RADIO_MAX = 5;

/**
 * The Block Kit element for one elicitation field: `number_input` (min/max, decimals only for
 * `number`), `email_text_input`, `url_text_input`, `datepicker`, `datetimepicker`, text; a
 * boolean as Yes/No; an enum as radio buttons (≤ 5 options) or a menu; a multi-enum as
 * checkboxes (≤ 10) or a multi-select. Option values are indexes (labels may be longer than
 * a value may be); `parseFieldValue` maps them back. Defaults become initial values. Option
 * labels are cut to `labelMax` (a card of a hundred options must still fit a message).
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
      const options = field.options.slice(0, LIMITS.selectOptions).map((o, i) => option(o.label, i, labelMax));
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
  if (field.type === 'number' || field.type === 'integer') return true;
  return field.type === 'string' && field.format !== 'date' && field.format !== 'date-time';
}

export type ParsedField = { ok: true; value: string | number | boolean | string[] | undefined } | { ok: false; error: string };

/** A field's answer from its element's state, checked against the field (required, min/max, formats). */
export function parseFieldValue(field: ElicitationField, required: boolean, state: InputState | undefined): ParsedField {
  const missing = (): ParsedField => (required ? { ok: false, error: 'This field is required.' } : { ok: true, value: undefined });
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

/** The `max_length` a text field's input declares: the field's own, within what a Slack input holds. */
function textMaxLength(field: Extract<ElicitationField, { type: 'string' }>): number {
  return Math.min(field.maxLength ?? LIMITS.plainTextInputMaxLength, LIMITS.plainTextInputMaxLength);
}

/** The label people see for a field: its title, else its name. */
export function fieldLabel(name: string, field: ElicitationField): string {
  return oneLine(field.title?.trim() || name);
}

const yes: PlainTextOption = { text: plainText('Yes'), value: 'true' };
const no: PlainTextOption = { text: plainText('No'), value: 'false' };

function option(label: string, index: number, max: number): PlainTextOption {
  return { text: plainText(oneLine(label), max), value: String(index) };
}
