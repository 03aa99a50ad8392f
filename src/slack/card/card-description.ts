import type { Agent } from '../../agent/agent.js';
import type { PendingAction } from '../../db/rows.js';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { CallPresentation } from '../../agent/describe-call.js';
import { describeArgs, escapeOwnDescription, labelOf, type CallInWords } from '../kit/describe-args.js';
import type { EditKeyLabel, EditValueFormatter } from '../kit/edit-diff-text.js';
import { formatArgValue } from '../kit/format-arg-value.js';

export interface CallOnCard extends CallInWords {
  risk: 'low' | 'high';
  requireReason: boolean;
}

/**
 * How an approval card describes its call: the tool's own describe() when it has a working one
 * (its strings escaped, since they carry what the model wrote), else the arguments described
 * from the tool's input schema. Asked of the Agent, which finds the tool along the request's path.
 */
export function callOnCard(agent: Agent, action: Pick<PendingAction, 'tool_name' | 'args' | 'path'> & { limit_hits?: PendingAction['limit_hits'] }): CallOnCard {
  return describedCall(action.tool_name, action.args, agent.describeCall(action));
}

/** callOnCard from a presentation already worked out (a RequestView's `description`). */
export function describedCall(toolName: string, args: unknown, presented: CallPresentation): CallOnCard {
  const description = presented.description ? escapeOwnDescription(presented.description) : describeArgs(toolName, args, presented.inputSchema);
  return { ...description, own: presented.description !== undefined, risk: presented.risk, requireReason: presented.requireReason };
}

/** What each approver said with their approval, by user id. */
export function approvalReasons(action: Pick<PendingAction, 'approvals'>): Record<string, string> {
  const reasons: Record<string, string> = {};
  for (const vote of action.approvals) if (typeof vote.reason === 'string' && vote.reason.trim()) reasons[vote.userId] = vote.reason;
  return reasons;
}

/**
 * How an edit's changes read on the card: each argument named and its values shown as the card's
 * fields show them ("Amount $1,500.50 → $1,000.00"), from the tool's input schema.
 */
export function editShownOnCard(agent: Agent, action: Pick<PendingAction, 'tool_name' | 'args' | 'path'> & { limit_hits?: PendingAction['limit_hits'] }): { format: EditValueFormatter; label: EditKeyLabel } {
  return editShown(agent.describeCall(action).inputSchema, action.args);
}

/** editShownOnCard from the tool's input schema already at hand (a RequestView's `description.inputSchema`). */
export function editShown(schema: JSONSchema7 | undefined, args: unknown): { format: EditValueFormatter; label: EditKeyLabel } {
  const properties = schema?.properties ?? {};
  const propOf = (key: string): JSONSchema7 | undefined => {
    const prop = Object.hasOwn(properties, key) ? properties[key] : undefined;
    return typeof prop === 'object' && prop !== null ? prop : undefined;
  };
  const currency = args !== null && typeof args === 'object' ? (args as Record<string, unknown>).currency : undefined;
  return {
    format: (value, key) => formatArgValue(value, { key, schema: propOf(key), currency, maxChars: 200 }),
    label: (key) => labelOf(key, propOf(key)),
  };
}
