import { authorizeAnswer } from '../approvals/authorize-answer.js';
import type { Authorization } from '../approvals/authorize-actor.js';
import { requirementFor } from '../approvals/requirement-for.js';
import type { PendingAction } from '../db/pending-action.js';
import type { Actor } from './decision.js';
import type { RuntimeDeps } from './run-state.js';

/**
 * Who may answer this question or suspended call, under the current policy:
 * its run's requester or an approver of its tool (see authorizeAnswer). Every
 * way of answering goes through this (resumeStream, auto-resume, the Slack
 * forms), as every decision goes through authorizeActor.
 */
export function mayAnswer(
  deps: RuntimeDeps,
  action: Pick<PendingAction, 'tool_name' | 'args' | 'requester'>,
  actor: Actor,
): Promise<Authorization> {
  return authorizeAnswer({
    actor,
    approvers: requirementFor(deps.policy, action.tool_name, action.args).approvers,
    toolName: action.tool_name,
    ...(action.requester !== null ? { requester: action.requester } : {}),
    ...(deps.botUserId ? { botUserId: deps.botUserId } : {}),
    ...(deps.resolveGroupMembers ? { resolveGroupMembers: deps.resolveGroupMembers } : {}),
  });
}
