import { unreachableQuorum } from '../../approvals/unreachable-quorum.js';
import type { PendingAction } from '../../db/rows.js';
import type { SlackContext } from '../context.js';

/**
 * Whether a pending approval can never reach its quorum under the policy in force (the
 * approvers who may decide it, as decisions are checked, counted against the quorum it was
 * asked with): what the card warns about. Costs nothing unless the listed users fall short;
 * then user groups are looked up through the workspace's cached resolver.
 */
export async function unreachableQuorumOf(ctx: SlackContext, action: PendingAction): Promise<{ eligible: number } | undefined> {
  if (action.kind !== 'approval' || action.status !== 'pending') return undefined;
  const requirement = ctx.agent.requirementOf(action);
  return unreachableQuorum({
    approvers: requirement.approvers,
    allowSelfApproval: requirement.allowSelfApproval,
    quorum: action.quorum,
    requester: action.requester ?? undefined,
    botUserId: ctx.botUserId,
    resolveGroupMembers: ctx.agent.groupResolver,
  });
}
