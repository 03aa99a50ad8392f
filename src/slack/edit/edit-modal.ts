import type { KnownBlock, ModalView } from '@slack/types';
import type { ElicitationField, ElicitationForm } from '../../mcp/elicitation-payload.js';
import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { CALLBACK_IDS } from '../kit/action-ids.js';
import { approvalButtonValue } from '../kit/button-value.js';
import { fieldElement } from '../answer/elicitation-inputs.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import { ELICITATION_INPUT_ACTION_ID, elicitationFieldId, parseElicitationModal, type ElicitationModalResult } from '../answer/elicitation-modal.js';
import { section } from '../kit/layout.js';
import { LIMITS, truncate } from '../kit/limits.js';
import { oneLine, plainText } from '../kit/text-objects.js';

/** One block for the introduction; a form with more fields than fit is not offered for editing. */
export const EDIT_MAX_FIELDS = LIMITS.modalBlocks - 1;

export interface EditModalData {
  actionId: number;
  /** The fingerprint of the arguments the editor sees: the edit is refused if the request moved on. */
  fingerprint: string;
  toolName: string;
  form: ElicitationForm;
  /** The request's arguments now, prefilled. */
  current: unknown;
}

/**
 * The Edit modal: one input per argument of the tool's input schema (text, number, Yes/No, menu,
 * checkboxes), prefilled with the pending arguments. Block ids are `f<index>`, which
 * `response_action: 'errors'` reports against; private_metadata binds the submission to the
 * request and the fingerprint the editor saw.
 */
export function editModal(d: EditModalData): ModalView {
  const current = typeof d.current === 'object' && d.current !== null ? (d.current as Record<string, unknown>) : {};
  const blocks: KnownBlock[] = [
    section(`Change the arguments of ${inlineCode(truncate(d.toolName, 150))}, then approve. The request is asked again for the new arguments: if they need other approvers, it waits for them.`),
  ];
  d.form.fields.slice(0, EDIT_MAX_FIELDS).forEach(({ name, required, field }, i) => {
    const label = field.title?.trim() || humanise(name);
    const hint = field.title?.trim() ? field.description?.trim() : field.description?.trim();
    blocks.push({
      type: 'input',
      block_id: elicitationFieldId(i),
      optional: !required,
      label: plainText(oneLine(label), LIMITS.inputLabel),
      element: fieldElement(prefilled(field, current[name]), ELICITATION_INPUT_ACTION_ID),
      ...(hint ? { hint: plainText(hint, LIMITS.inputHint) } : {}),
    } as unknown as KnownBlock);
  });
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.editModal,
    private_metadata: approvalButtonValue(d.actionId, d.fingerprint),
    title: plainText('Edit and approve', LIMITS.modalTitle),
    submit: plainText('Approve', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks,
  };
}

/** The submitted arguments, typed as the form describes them; errors by block id. */
export function parseEditModal(form: ElicitationForm, values: ViewStateValues): ElicitationModalResult {
  return parseElicitationModal({ fields: form.fields.slice(0, EDIT_MAX_FIELDS) }, values);
}

/** The block id of the field for argument `name`, for errors the tool's schema reports. */
export function editFieldBlockId(form: ElicitationForm, name: string): string | undefined {
  const i = form.fields.findIndex((f) => f.name === name);
  return i >= 0 && i < EDIT_MAX_FIELDS ? elicitationFieldId(i) : undefined;
}

/** `amountCents` → "Amount cents", `dry_run` → "Dry run". */
export function humanise(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words === '' ? key : words[0]!.toUpperCase() + words.slice(1);
}

/** The field with the current value as its initial one (when the value fits the field). */
function prefilled(field: ElicitationField, value: unknown): ElicitationField {
  const { default: _ignored, ...bare } = field as ElicitationField & { default?: unknown };
  switch (field.type) {
    case 'string':
    case 'enum':
      return typeof value === 'string' ? ({ ...bare, default: value } as ElicitationField) : (bare as ElicitationField);
    case 'number':
    case 'integer':
      return typeof value === 'number' && Number.isFinite(value) ? ({ ...bare, default: value } as ElicitationField) : (bare as ElicitationField);
    case 'boolean':
      return typeof value === 'boolean' ? ({ ...bare, default: value } as ElicitationField) : (bare as ElicitationField);
    case 'multi-enum':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? ({ ...bare, default: value } as ElicitationField) : (bare as ElicitationField);
  }
}
