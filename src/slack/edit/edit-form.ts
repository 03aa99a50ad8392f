import type { Agent } from '../../agent/agent.js';
import { argsDiff } from '../../approvals/args-diff.js';
import type { PendingAction } from '../../db/rows.js';
import { elicitationForm } from '../../mcp/elicitation-form.js';
import type { ElicitationForm } from '../../mcp/elicitation-payload.js';
import { editDiffText, jsonValue, type EditKeyLabel, type EditValueFormatter } from '../kit/edit-diff-text.js';
import { EDIT_MAX_FIELDS } from './edit-modal.js';

/**
 * The form an editor of this request fills in: its tool's input schema (from the Agent) as
 * fields, when it is a flat object of strings, numbers, integers, booleans and enums that fits
 * one modal; undefined when the request cannot be edited (policy `allowEdit: false`, a tool of
 * another shape, or one the code no longer has).
 */
export function editFormOf(agent: Agent, action: Pick<PendingAction, 'tool_name' | 'args' | 'path' | 'kind' | 'limit_hits'>): ElicitationForm | undefined {
  const schema = agent.editSchemaOf(action) as Record<string, unknown> | undefined;
  if (!schema || schema.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null) return undefined;
  const properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Record<string, unknown>>).map(([k, p]) => [k, withoutSafeIntegerBounds(p)]));
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const form = elicitationForm({ type: 'object', properties, required } as never);
  if (!form || form.fields.length === 0 || form.fields.length > EDIT_MAX_FIELDS) return undefined;
  return form;
}

/** zod writes ±2^53−1 as an integer's bounds: no bound a person needs to see in a number input. */
function withoutSafeIntegerBounds(p: Record<string, unknown>): Record<string, unknown> {
  if (typeof p !== 'object' || p === null) return p;
  const { minimum, maximum, ...rest } = p;
  return {
    ...rest,
    ...(typeof minimum === 'number' && Math.abs(minimum) < Number.MAX_SAFE_INTEGER ? { minimum } : {}),
    ...(typeof maximum === 'number' && Math.abs(maximum) < Number.MAX_SAFE_INTEGER ? { maximum } : {}),
  };
}

/** What an approval card shows about editing: the Edit button while pending, and the "edited by" line. */
export function editFacts(
  agent: Agent,
  action: PendingAction,
  shown: { format: EditValueFormatter; label?: EditKeyLabel } = { format: jsonValue },
): { editable?: true; editedLine?: string } {
  const editable = action.status === 'pending' && editFormOf(agent, action) !== undefined;
  const edit = action.edit;
  return {
    ...(editable ? { editable: true as const } : {}),
    ...(edit ? { editedLine: editDiffText(edit.editor, argsDiff(edit.proposedArgs, action.args), shown.format, 2000, shown.label) } : {}),
  };
}
