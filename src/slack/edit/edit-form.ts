import type { Agent } from '../../agent/agent.js';
import type { PendingAction } from '../../db/rows.js';
import type { Form } from '../kit/form-fields.js';
import { editFormOfSchema } from '../card/edit-facts.js';

/**
 * The form an editor of this request fills in: its tool's input schema (from the Agent) as
 * fields, when it is a flat object of strings, numbers, integers, booleans and enums that fits
 * one modal; undefined when the request cannot be edited (policy `allowEdit: false`, a tool of
 * another shape, or one the code no longer has).
 */
export function editFormOf(agent: Agent, action: Pick<PendingAction, 'tool_name' | 'args' | 'path' | 'kind' | 'limit_hits'>): Form | undefined {
  return editFormOfSchema(agent.editSchemaOf(action));
}
