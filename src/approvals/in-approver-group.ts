import type { GroupResolver } from './group-resolver.js';

const GROUP_ID = /^S/;

/**
 * Whether the user belongs to one of the user groups (S…) among `approvers`:
 * by the groups the user is known to be in (`knownGroups`) when given, else by
 * asking the resolver. Without either, no group admits anyone (fail closed). A lookup
 * that fails, when no other group admits the actor, is thrown with the group
 * id, so the caller can say "try again" rather than wrongly refuse.
 */
export async function inApproverGroup(
  userId: string,
  approvers: readonly string[],
  knownGroups: readonly string[] | undefined,
  resolveGroupMembers: GroupResolver | undefined,
): Promise<boolean> {
  const groups = approvers.filter((id) => GROUP_ID.test(id));
  if (groups.length === 0) return false;
  if (knownGroups !== undefined) return knownGroups.some((g) => groups.includes(g));
  if (resolveGroupMembers === undefined) return false;
  const lookups = await Promise.allSettled(groups.map((g) => resolveGroupMembers(g)));
  if (lookups.some((r) => r.status === 'fulfilled' && r.value.includes(userId))) return true;
  const failedAt = lookups.findIndex((r) => r.status === 'rejected');
  const failure = lookups[failedAt];
  if (failure?.status === 'rejected') {
    throw new Error(`Could not check membership of user group ${groups[failedAt]}`, { cause: failure.reason });
  }
  return false;
}
