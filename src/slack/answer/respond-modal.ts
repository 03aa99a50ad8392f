import type { InputBlock, InputBlockElement, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { LIMITS, truncate, truncateMrkdwn } from '../kit/limits.js';
import { CALLBACK_IDS } from '../kit/action-ids.js';
import { actionButtonValue } from '../kit/button-value.js';
import type { RespondField, RespondModalData } from '../card/card-types.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import { context, section } from '../kit/layout.js';
import { humanList } from '../kit/mention.js';
import { oneLine, plainText } from '../kit/text-objects.js';
import { unreachable } from '../../unreachable.js';

/** Every input uses the same action id; the block id says which field it is. */
export const RESPOND_ACTION_ID = 'value';
/** One block for the introduction and one for a "fields not shown" note. */
const MAX_FIELDS = LIMITS.modalBlocks - 2;

/**
 * The block id of a field: its name, which is what `response_action: 'errors'` reports against.
 * A name too long for a block id keeps a prefix plus its position, which stays unique.
 */
export function respondFieldBlockId(field: RespondField, index: number): string {
  if (field.name === '') return `#${index}`;
  return field.name.length <= LIMITS.blockId ? field.name : `${field.name.slice(0, LIMITS.blockId - 12)}#${index}`;
}

/** Enums that fit in a menu are rendered as one; longer ones as text checked on submit. */
function enumAsMenu(field: RespondField): boolean {
  const n = field.options?.length ?? 0;
  return n > 0 && n <= LIMITS.selectOptions;
}

function element(field: RespondField): InputBlockElement {
  switch (field.kind) {
    case 'number':
      return { type: 'number_input', action_id: RESPOND_ACTION_ID, is_decimal_allowed: true };
    case 'boolean':
      return {
        type: 'radio_buttons',
        action_id: RESPOND_ACTION_ID,
        options: [
          { text: plainText('Yes'), value: 'true' },
          { text: plainText('No'), value: 'false' },
        ],
      };
    case 'enum':
      if (enumAsMenu(field)) {
        const options: PlainTextOption[] = (field.options ?? []).map((o, i) => ({
          text: plainText(oneLine(o), LIMITS.optionText),
          value: String(i),
        }));
        return { type: 'static_select', action_id: RESPOND_ACTION_ID, placeholder: plainText('Choose…'), options };
      }
      return { type: 'plain_text_input', action_id: RESPOND_ACTION_ID, max_length: LIMITS.plainTextInputMaxLength };
    case 'string':
      return { type: 'plain_text_input', action_id: RESPOND_ACTION_ID, max_length: LIMITS.plainTextInputMaxLength };
    default:
      return unreachable(field.kind, 'respond field kind');
  }
}

function hint(field: RespondField): string | undefined {
  const parts: string[] = [];
  if (field.description?.trim()) parts.push(field.description.trim());
  if (field.kind === 'enum' && !enumAsMenu(field) && (field.options?.length ?? 0) > 0) {
    parts.push(`One of: ${humanList(field.options ?? [], { conjunction: 'or', maxChars: 1500, noun: 'values' })}`);
  }
  return parts.length > 0 ? parts.join(' — ') : undefined;
}

/** The form a suspended tool's resume data is entered in, one input per field. */
export function respondModal(data: RespondModalData): ModalView {
  const tool = `Input for ${inlineCode(truncate(data.toolName, 200))}`;
  const question = data.question?.trim();
  // The question the tool asked, above the fields it is answered in; escaped, as a model may have written it.
  const intro = question ? `${truncateMrkdwn(escapeMrkdwn(truncate(question, LIMITS.sectionText)), LIMITS.sectionText - 400)}\n\n${tool}` : tool;
  const blocks: KnownBlock[] = [section(intro)];
  const visible = data.fields.slice(0, MAX_FIELDS);
  visible.forEach((field, i) => {
    const input: InputBlock = {
      type: 'input',
      block_id: respondFieldBlockId(field, i),
      optional: field.optional,
      label: plainText(oneLine(field.label ?? field.name) || field.name, LIMITS.inputLabel),
      element: element(field),
    };
    const text = hint(field);
    if (text !== undefined) input.hint = plainText(text, LIMITS.inputHint);
    blocks.push(input);
  });
  const hidden = data.fields.length - visible.length;
  if (hidden > 0) blocks.push(context(`${hidden} more fields do not fit in this form — reply in the thread instead`));
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.respondModal,
    private_metadata: actionButtonValue(data.actionId),
    title: plainText('Provide input', LIMITS.modalTitle),
    submit: plainText('Submit', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks,
  };
}

export type RespondModalResult =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; errors: Record<string, string> };

/**
 * Turns a view_submission's `view.state.values` back into typed data (numbers as numbers,
 * booleans as booleans, enum values as the exact strings). Errors are keyed by block id, ready
 * for `ack({ response_action: 'errors', errors })`. Optional fields left empty are omitted.
 */
export function parseRespondModal(fields: readonly RespondField[], stateValues: ViewStateValues): RespondModalResult {
  const data: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  fields.slice(0, MAX_FIELDS).forEach((field, i) => {
    const blockId = respondFieldBlockId(field, i);
    const state = stateValues[blockId]?.[RESPOND_ACTION_ID];
    const raw = (state?.value ?? state?.selected_option?.value ?? '').trim();
    if (raw === '') {
      if (!field.optional) errors[blockId] = 'This field is required.';
      return;
    }
    switch (field.kind) {
      case 'string':
        data[field.name] = state?.value ?? raw;
        return;
      case 'number': {
        const n = Number(raw);
        if (Number.isFinite(n)) data[field.name] = n;
        else errors[blockId] = 'Enter a number.';
        return;
      }
      case 'boolean':
        if (raw === 'true' || raw === 'false') data[field.name] = raw === 'true';
        else errors[blockId] = 'Choose Yes or No.';
        return;
      case 'enum': {
        const options = field.options ?? [];
        const value = enumAsMenu(field) ? (/^\d+$/.test(raw) ? options[Number(raw)] : undefined) : options.find((o) => o === raw);
        if (value !== undefined) data[field.name] = value;
        else errors[blockId] = truncate(`Choose one of: ${humanList(options, { conjunction: 'or', maxChars: 200, noun: 'values' })}`, 250);
        return;
      }
      default:
        unreachable(field.kind, 'respond field kind');
    }
  });
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, data };
}
