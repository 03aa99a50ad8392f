import type { GroupResolver } from './group-resolver.js';
import type { Requirement } from './requirement-for.js';

export interface Actor {
  userId: string;
  /** User-group ids (S…) the actor is known to be in; when given, no resolver is consulted. */
  groups?: string[];
}

export interface AuthorizeActorInput {
  requirement: Requirement;
  actor: Actor;
  /** The user who started the run; undefined when no person did (e.g. a scheduled run). */
  requester?: string;
  botUserId?: string;
  resolveGroupMembers?: GroupResolver;
  /** Only used to make refusal messages specific. */
  toolName?: string;
}

export type RefusalReason = 'bot' | 'self-approval' | 'not-an-approver' | 'unknown-actor';

export type Authorization =
  | { allowed: true }
  | { allowed: false; why: RefusalReason; message: string };

const GROUP_ID = /^S/;

/**
 * May this Slack user approve (or decline) a request with this requirement? Messages are plain
 * text so the caller can render them for Slack, a log line or an API response alike.
 *
 * Fails closed: a group in the approver list that cannot be checked (no `actor.groups`, no
 * resolver) does not admit anyone. If a group lookup fails and no other entry admits the actor,
 * the lookup error is thrown (with the group id) instead of returning a refusal, so the caller
 * can say "try again" rather than wrongly telling an approver they are not one.
 */
export async function authorizeActor(input: AuthorizeActorInput): Promise<Authorization> {
  const { requirement, actor, requester, botUserId, resolveGroupMembers, toolName } = input;
  const subject = toolName ?? 'this request';
  const userId = typeof actor.userId === 'string' ? actor.userId.trim() : '';

  if (userId === '') {
    return refuse('unknown-actor', `Could not tell who is approving, so ${subject} was not approved.`);
  }
  // Checked before the approver list: even a misconfigured list must not let the bot approve itself.
  if (botUserId !== undefined && userId === botUserId) {
    return refuse('bot', `The bot cannot approve ${subject}.`);
  }
  if (!requirement.allowSelfApproval && requester !== undefined && userId === requester) {
    return refuse('self-approval', `You started this run, so someone else has to approve ${subject}.`);
  }
  if (requirement.approvers.length === 0) return { allowed: true };
  if (requirement.approvers.includes(userId)) return { allowed: true };

  const listedGroups = requirement.approvers.filter((id) => GROUP_ID.test(id));
  if (listedGroups.length > 0) {
    if (actor.groups !== undefined) {
      if (actor.groups.some((g) => listedGroups.includes(g))) return { allowed: true };
    } else if (resolveGroupMembers !== undefined) {
      const lookups = await Promise.allSettled(listedGroups.map((g) => resolveGroupMembers(g)));
      if (lookups.some((r) => r.status === 'fulfilled' && r.value.includes(userId))) return { allowed: true };
      const failedAt = lookups.findIndex((r) => r.status === 'rejected');
      const failure = lookups[failedAt];
      if (failure?.status === 'rejected') {
        throw new Error(`Could not check membership of user group ${listedGroups[failedAt]}`, {
          cause: failure.reason,
        });
      }
    }
  }
  return refuse('not-an-approver', `Only listed approvers can approve ${subject}.`);
}

function refuse(why: RefusalReason, message: string): Authorization {
  return { allowed: false, why, message };
}
