import { approversAt } from '../../approvals/approvers-at.js';
import type { Request } from '../../agent/request.js';
import { isUserGroupId, isUserId } from '../kit/mention.js';
import type { SlackContext } from '../context.js';

/** Members of one approver group listed at most; a larger group sees its Home update when it is opened. */
const GROUP_MEMBERS_MAX = 200;

/**
 * Whose inbox shows this request: its requester, whoever decided or voted, and who may decide it
 * under the policy at `now` (listed users, members of listed groups, and those an escalation has
 * added by then; `everyone` when anyone may).
 */
export async function affectedUsers(ctx: SlackContext, action: Request, now = new Date()): Promise<{ users: string[]; everyone: boolean }> {
  const users = new Set<string>();
  if (action.requester) users.add(action.requester);
  if (action.decidedBy) users.add(action.decidedBy);
  for (const vote of Array.isArray(action.approvals) ? action.approvals : []) {
    const id = (vote as { userId?: unknown } | null)?.userId;
    if (typeof id === 'string') users.add(id);
  }
  const approvers = approversAt(ctx.agent.requirementOf(action), new Date(action.createdAt), now);
  const resolve = ctx.agent.groupResolver;
  for (const id of approvers) {
    if (isUserId(id)) users.add(id);
    else if (isUserGroupId(id) && resolve) {
      try {
        for (const member of (await resolve(id)).slice(0, GROUP_MEMBERS_MAX)) users.add(member);
      } catch (error) {
        ctx.logger.warn({ err: error, group: id }, 'approver group could not be read for Home updates');
      }
    }
  }
  if (ctx.botUserId) users.delete(ctx.botUserId);
  return { users: [...users].filter(isUserId), everyone: approvers.length === 0 };
}

/** Queues a Home refresh for everyone whose inbox shows `action`; never throws (a Home is a view, not the record). */
export function refreshHomesFor(ctx: SlackContext, action: Request | undefined): void {
  if (!ctx.home || !action || action.kind !== 'approval') return;
  const home = ctx.home;
  affectedUsers(ctx, action).then(
    ({ users, everyone }) => home.refresh(users, everyone),
    (error: unknown) => ctx.logger.warn({ err: error, actionId: action.id }, 'Home refresh failed'),
  );
}
