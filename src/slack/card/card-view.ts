import type { RequestView } from '../../agent/request-view.js';
import type { Request } from '../../agent/request.js';
import type { SlackContext } from '../context.js';

/** What drawing an approval card takes besides its row: the request's view and whether its quorum can be reached. */
interface CardView {
  view?: RequestView;
  unreachableQuorum?: { eligible: number };
}

/**
 * The view a card is drawn from (one policy evaluation, see Agent.viewRequest) and, for a pending
 * approval, whether it can never reach its quorum under the policy in force (the approvers who
 * may decide it, as decisions are checked, counted against the quorum it was asked with): what
 * the card warns about. Costs nothing unless the listed users fall short; then user groups are
 * looked up through the workspace's cached resolver. Other kinds of request need no view.
 */
export async function cardViewOf(ctx: SlackContext, action: Request): Promise<CardView> {
  if (action.kind !== 'approval') return {};
  const view = ctx.agent.viewRequest(action);
  const unreachableQuorum = await view.unreachableQuorum(ctx.botUserId);
  return { view, ...(unreachableQuorum ? { unreachableQuorum } : {}) };
}
