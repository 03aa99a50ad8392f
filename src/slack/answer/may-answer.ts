import { actorOf, type Person, type SlackContext } from '../context.js';
import type { PendingAction } from '../../db/rows.js';

/**
 * Whether a Slack user may answer this question or suspended tool (or cancel
 * its run): the runtime's rule (Agent.mayAnswer), asked before anything is
 * shown, so a refusal can be explained. A group lookup that fails refuses.
 */
export async function mayAnswer(ctx: Pick<SlackContext, 'agent' | 'logger'>, action: PendingAction, who: Person): Promise<boolean> {
  try {
    return (await ctx.agent.mayAnswer(action, actorOf(who))).allowed;
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: action.id, user: who.user }, 'could not check who may answer; refused');
    return false;
  }
}
