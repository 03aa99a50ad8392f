import type { GroupResolver } from './group-resolver.js';
import type { Requirement } from './requirement-for.js';
import { inApproverGroup } from './in-approver-group.js';
import type { TeamOfActor } from './workspace.js';

/**
 * Who acts. `teamId` is the person's team as the front end received it (see TeamOfActor): when
 * given, they must belong to the workspace the runtime serves (or a team the policy trusts).
 */
export interface Actor extends TeamOfActor {
  userId: string;
  /** User-group ids (S…) the actor is known to be in; when given, no resolver is consulted. */
  groups?: string[];
}

interface AuthorizeActorInput {
  requirement: Requirement;
  actor: Actor;
  /** The user who started the run; undefined when no person did (e.g. a scheduled run). */
  requester?: string;
  botUserId?: string;
  resolveGroupMembers?: GroupResolver;
  /** Only used to make refusal messages specific. */
  toolName?: string;
}

export type RefusalReason = 'bot' | 'self-approval' | 'not-an-approver' | 'not-the-requester' | 'unknown-actor' | 'outside-workspace';

export type Authorization =
  | { allowed: true }
  | { allowed: false; why: RefusalReason; message: string };

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

  if (await inApproverGroup(userId, requirement.approvers, actor.groups, resolveGroupMembers)) return { allowed: true };
  return refuse('not-an-approver', `Only listed approvers can approve ${subject}.`);
}

function refuse(why: RefusalReason, message: string): Authorization {
  return { allowed: false, why, message };
}
