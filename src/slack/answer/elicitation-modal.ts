import type { KnownBlock, ModalView } from '@slack/types';
import type { ElicitationForm } from '../../mcp/elicitation-payload.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { CALLBACK_IDS } from '../kit/action-ids.js';
import { actionButtonValue } from '../kit/button-value.js';
import { fieldElement, fieldLabel, parseFieldValue } from './elicitation-inputs.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import { section } from '../kit/layout.js';
import { LIMITS, truncate } from '../kit/limits.js';
import { plainText } from '../kit/text-objects.js';

/** Every input uses the same action id; the block id (`f<index>`) says which field it is. */
export const ELICITATION_INPUT_ACTION_ID = 'value';
/** One block for the message. */
const MAX_FIELDS = LIMITS.modalBlocks - 1;

export function elicitationFieldId(index: number): string {
  return `f${index}`;
}

/** The modal behind an elicitation card's Answer button: one input per field of the server's form. */
export function elicitationModal(data: { actionId: number; message: string; form: ElicitationForm }): ModalView {
  const blocks: KnownBlock[] = [section(escapeMrkdwn(truncate(data.message.trim() || '(no message)', LIMITS.sectionText - 100)))];
  data.form.fields.slice(0, MAX_FIELDS).forEach(({ name, required, field }, i) => {
    blocks.push({
      type: 'input',
      block_id: elicitationFieldId(i),
      optional: !required,
      label: plainText(fieldLabel(name, field), LIMITS.inputLabel),
      element: fieldElement(field, ELICITATION_INPUT_ACTION_ID),
      ...(field.description?.trim() ? { hint: plainText(field.description, LIMITS.inputHint) } : {}),
    } as unknown as KnownBlock);
  });
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.elicitationModal,
    private_metadata: actionButtonValue(data.actionId),
    title: plainText('Answer', LIMITS.modalTitle),
    submit: plainText('Send', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks,
  };
}

export type ElicitationModalResult = { ok: true; content: Record<string, string | number | boolean | string[]> } | { ok: false; errors: Record<string, string> };

/** The form's answers from a submission, typed and checked; errors by block id, for `response_action: 'errors'`. */
export function parseElicitationModal(form: ElicitationForm, values: ViewStateValues): ElicitationModalResult {
  const content: Record<string, string | number | boolean | string[]> = {};
  const errors: Record<string, string> = {};
  form.fields.slice(0, MAX_FIELDS).forEach(({ name, required, field }, i) => {
    const parsed = parseFieldValue(field, required, values[elicitationFieldId(i)]?.[ELICITATION_INPUT_ACTION_ID]);
    if (!parsed.ok) errors[elicitationFieldId(i)] = parsed.error;
    else if (parsed.value !== undefined) content[name] = parsed.value;
  });
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, content };
}
