import type { Actor, Authorization, RefusalReason } from './authorize-actor.js';
import type { GroupResolver } from './group-resolver.js';
import { inApproverGroup } from './in-approver-group.js';

interface AuthorizeAnswerInput {
  actor: Actor;
  /** Who started the run; undefined when no person did (a run started from code without one). */
  requester?: string;
  /** The policy's approvers of the call's tool: users (U…/W…) and user groups (S…). */
  approvers: readonly string[];
  botUserId?: string;
  resolveGroupMembers?: GroupResolver;
  /** Only used to make refusal messages specific. */
  toolName?: string;
}

/**
 * May this user answer a question or give a suspended tool its input? The
 * person who started the run may, and so may anyone the policy lists as an
 * approver of the tool (directly or through a user group); the bot never. A
 * run nobody started can be answered by anyone but the bot. Unlike a decision,
 * an empty approver list does not open answering to everyone: the answer is
 * the requester's to give.
 *
 * Fails closed like authorizeActor: a listed group that cannot be checked
 * admits nobody, and a failed lookup is thrown (with the group id) when no
 * other entry admits the actor, so the caller can say "try again".
 */
export async function authorizeAnswer(input: AuthorizeAnswerInput): Promise<Authorization> {
  const { actor, requester, approvers, botUserId, resolveGroupMembers, toolName } = input;
  const userId = typeof actor.userId === 'string' ? actor.userId.trim() : '';
  if (userId === '') return refuse('unknown-actor', 'Could not tell who is answering, so the answer was not taken.');
  if (botUserId !== undefined && userId === botUserId) return refuse('bot', 'The bot cannot answer its own requests.');
  if (requester === undefined || userId === requester) return { allowed: true };
  if (approvers.includes(userId)) return { allowed: true };

  if (await inApproverGroup(userId, approvers, actor.groups, resolveGroupMembers)) return { allowed: true };
  return refuse('not-the-requester', `Only the person who started this run, or an approver of ${toolName ?? 'this request'}, can answer it.`);
}

function refuse(why: RefusalReason, message: string): Authorization {
  return { allowed: false, why, message };
}
