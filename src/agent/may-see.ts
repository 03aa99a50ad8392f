import type { PendingAction } from '../db/rows.js';
import { mayDecide, workspaceRefusal } from './decide.js';
import type { Actor } from './api-types.js';
import type { AgentInternals, RuntimeDeps } from './run-model.js';

/** What seeing a request is judged on. */
export type SeenRequest = Pick<PendingAction, 'kind' | 'tool_name' | 'args' | 'requester' | 'policy_version' | 'decided_by' | 'approvals'> & {
  path?: string[] | null;
  created_at?: PendingAction['created_at'];
  limit_hits?: unknown;
};

/**
 * May `actor` see this request at all (its tool, arguments, status, who decided)? Its requester;
 * whoever decided it or voted on it; and, for an approval, anyone who may decide it under the
 * current policy (mayDecide, in any status: an approver of the tool sees how it went). Nobody
 * else, and then no front end tells them anything about it, not even that it exists: every
 * surface that shows a request, or a refusal that names it, asks this first. A group lookup that
 * fails sees nothing (fail closed).
 */
export async function maySee(root: Pick<AgentInternals, 'id'>, deps: RuntimeDeps, action: SeenRequest, actor: Actor): Promise<boolean> {
  const user = typeof actor.userId === 'string' ? actor.userId : '';
  // Rules about the actor alone (who may act here at all) belong first, before anyone is let in by their part in the request.
  if (user === '' || user === deps.botUserId || workspaceRefusal(deps, actor)) return false;
  // Another agent's request (sharing the database) is not this agent's to show, as decide's locateAction finds none.
  if ((action.path ?? [])[0] !== root.id) return false;
  if (action.requester === user || action.decided_by === user) return true;
  if (Array.isArray(action.approvals) && action.approvals.some((vote) => (vote as { userId?: unknown } | null)?.userId === user)) return true;
  if (action.kind !== 'approval') return false;
  try {
    return (await mayDecide(deps, action, actor, 'approve')).allowed;
  } catch (error) {
    deps.logger.warn({ err: error, actor: user }, 'who may see a request could not be checked');
    return false;
  }
}
