import type { Agent } from '../../agent/agent.js';
import type { PendingAction } from '../../db/rows.js';
import { describeArgs, escapeOwnDescription, type CardDescription } from '../blocks/describe-args.js';

export interface CallOnCard extends CardDescription {
  risk: 'low' | 'high';
  requireReason: boolean;
}

/**
 * How an approval card describes its call: the tool's own describe() when it has a working one
 * (its strings escaped, since they carry what the model wrote), else the arguments described
 * from the tool's input schema. Asked of the Agent, which finds the tool along the request's path.
 */
export function callOnCard(agent: Agent, action: Pick<PendingAction, 'tool_name' | 'args' | 'path'>): CallOnCard {
  const presented = agent.describeCall(action.tool_name, action.args, action.path);
  const description = presented.description ? escapeOwnDescription(presented.description) : describeArgs(action.tool_name, action.args, presented.inputSchema);
  return { ...description, risk: presented.risk, requireReason: presented.requireReason };
}

/** What each approver said with their approval, by user id. */
export function approvalReasons(action: Pick<PendingAction, 'approvals'>): Record<string, string> {
  const reasons: Record<string, string> = {};
  for (const vote of action.approvals) if (typeof vote.reason === 'string' && vote.reason.trim()) reasons[vote.userId] = vote.reason;
  return reasons;
}
