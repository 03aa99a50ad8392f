import type { GroupResolver } from './group-resolver.js';

interface QuorumCheck {
  /** The approvers the policy names for the call: users (U…/W…) and user groups (S…); empty = anyone. */
  approvers: readonly string[];
  allowSelfApproval: boolean;
  /** The approvals the request needs. */
  quorum: number;
  requester?: string;
  botUserId?: string;
  resolveGroupMembers?: GroupResolver;
}

/**
 * How many people could approve a request, when that is fewer than its quorum: the request can
 * then never be approved (it waits until it expires), and whoever sees it should be told.
 * Counts each person once across users and groups (resolved now, since groups change), and
 * leaves out the bot and, without self-approval, the requester. Undefined when the quorum can be
 * met, and when that cannot be told (a group without a resolver, a lookup that failed): a
 * warning that might be wrong would be worse than none. Groups are only looked up when the
 * listed users alone fall short, so the usual request costs no lookup.
 */
export async function unreachableQuorum(check: QuorumCheck): Promise<{ eligible: number } | undefined> {
  const { approvers, allowSelfApproval, quorum, requester, botUserId, resolveGroupMembers } = check;
  if (approvers.length === 0) return undefined;
  const excluded = new Set<string>();
  if (botUserId !== undefined) excluded.add(botUserId);
  if (!allowSelfApproval && requester !== undefined) excluded.add(requester);

  const eligible = new Set(approvers.filter((id) => !id.startsWith('S') && !excluded.has(id)));
  if (eligible.size >= quorum) return undefined;
  const groups = approvers.filter((id) => id.startsWith('S'));
  if (groups.length > 0) {
    if (resolveGroupMembers === undefined) return undefined;
    const lookups = await Promise.allSettled(groups.map((group) => resolveGroupMembers(group)));
    for (const lookup of lookups) {
      if (lookup.status === 'rejected') return undefined;
      for (const member of lookup.value) if (!excluded.has(member)) eligible.add(member);
    }
  }
  return eligible.size >= quorum ? undefined : { eligible: eligible.size };
}
