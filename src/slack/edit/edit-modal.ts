import type { KnownBlock, ModalView } from '@slack/types';
import type { ElicitationField } from '../../mcp/elicitation-payload.js';
import type { Form } from '../kit/form-fields.js';
import { inlineCode } from '../kit/mrkdwn/escape-mrkdwn.js';
import { CALLBACK_IDS, approvalButtonValue } from '../kit/action-ids.js';
import { blockIdByIndex, fieldInput, readForm, type ReadForm } from '../kit/form-inputs.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import { section, plainText, LIMITS, truncate } from '../kit/limits.js';
import { EDIT_MAX_FIELDS } from '../card/render-card.js';
import type { z } from 'zod';

interface EditModalData {
  actionId: number;
  /** The fingerprint of the arguments the editor sees: the edit is refused if the request moved on. */
  fingerprint: string;
  toolName: string;
  form: Form;
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
  d.form.fields.slice(0, EDIT_MAX_FIELDS).forEach((entry, i) => {
    blocks.push(fieldInput({ ...entry, field: prefilled(entry.field, current[entry.name]) }, blockIdByIndex(entry, i)));
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

/** The submitted arguments, typed as the form describes them and checked against the tool's input schema; errors by block id. */
export function parseEditModal(form: Form, values: ViewStateValues, inputSchema?: z.ZodType): ReadForm {
  return readForm(form.fields.slice(0, EDIT_MAX_FIELDS), values, blockIdByIndex, inputSchema);
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
