import type { Agent } from '../agent/agent.js';
import { requirementFor } from '../approvals/requirement-for.js';
import type { PendingAction } from '../db/pending-action.js';

/**
 * Who may answer a question or give a suspended tool its input: the person who
 * started the run, or someone the policy lists as an approver of that tool.
 * Never the bot. A run nobody started (from code) can be answered by anyone.
 */
export function mayAnswer(agent: Agent, action: PendingAction, userId: string): boolean {
  const deps = agent.runtime;
  if (deps.botUserId && userId === deps.botUserId) return false;
  if (action.requester === null || action.requester === userId) return true;
  return requirementFor(deps.policy, action.tool_name, action.args).approvers.includes(userId);
}
