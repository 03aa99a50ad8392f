import type { Agent } from '../../agent/agent.js';
import type { RequestView } from '../../agent/request-view.js';
import type { JSONSchema7 } from '@ai-sdk/provider';
import { argsDiff } from '../../approvals/args-diff.js';
import type { Request } from '../../agent/request.js';
import { formOfJsonSchema, type Form } from '../kit/form-fields.js';
import { editDiffText, jsonValue, type EditKeyLabel, type EditValueFormatter } from '../kit/edit-diff-text.js';
import { LIMITS } from '../kit/limits.js';

/** One block for the Edit modal's introduction; a form with more fields than fit is not offered for editing. */
export const EDIT_MAX_FIELDS = LIMITS.modalBlocks - 1;

/**
 * The form an editor fills in, from a request's edit schema (a RequestView's `editSchema`, or
 * `Agent.editSchemaOf`): undefined when the request cannot be edited (no schema, one of another
 * shape, or more fields than fit one modal).
 */
function editFormOfSchema(schema: JSONSchema7 | undefined): Form | undefined {
  const form = formOfJsonSchema(schema);
  return form && form.fields.length <= EDIT_MAX_FIELDS ? form : undefined;
}

/**
 * The form an editor of this request fills in: its tool's input schema (from the Agent) as
 * fields, when it is a flat object of strings, numbers, integers, booleans and enums that fits
 * one modal; undefined when the request cannot be edited (policy `allowEdit: false`, a tool of
 * another shape, or one the code no longer has).
 */
export function editFormOf(agent: Agent, action: Request): Form | undefined {
  return editFormOfSchema(agent.editSchemaOf(action));
}

/** What an approval card shows about editing (from the request's view): the Edit button while pending, and the "edited by" line. */
export function editFacts(
  view: Pick<RequestView, 'editSchema'>,
  action: Request,
  shown: { format: EditValueFormatter; label?: EditKeyLabel } = { format: jsonValue },
): { editable?: true; editedLine?: string } {
  const editable = action.status === 'pending' && editFormOfSchema(view.editSchema) !== undefined;
  const edit = action.edit;
  return {
    ...(editable ? { editable: true as const } : {}),
    ...(edit ? { editedLine: editDiffText(edit.editor, argsDiff(edit.proposedArgs, action.args), shown.format, 2000, shown.label) } : {}),
  };
}
