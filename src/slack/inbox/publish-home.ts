import { homeView, HOME_FIT } from './inbox-blocks.js';
import { actorOf, type SlackContext } from '../context.js';
import { outsideWorkspaceMessage } from '../../approvals/workspace.js';
import { homePageOf } from './home-viewers.js';
import { emptyInbox, loadInbox } from './load-inbox.js';

/**
 * Draws `user`'s inbox, at the page of waiting requests they are on, and publishes it as their
 * Home tab, with `notice` on top when given. The event that opens a Home does not say whose team
 * the viewer is in: users.info does (cached), and someone outside the workspace gets a Home that
 * lists nothing and says why.
 */
export async function publishHome(ctx: SlackContext, user: string, notice?: string): Promise<void> {
  const who = { user, teamId: await ctx.userTeams(user) };
  if (ctx.agent.isOutsider(actorOf(who))) {
    ctx.logger.info({ user, teamId: who.teamId }, 'Home of someone outside the workspace: nothing listed');
    await ctx.client.views.publish({ user_id: user, view: homeView({ ...emptyInbox, notice: outsideWorkspaceMessage }) });
    return;
  }
  const inbox = await loadInbox(ctx, who, HOME_FIT, await homePageOf(ctx.slackDb, user));
  await ctx.client.views.publish({ user_id: user, view: homeView({ ...inbox, ...(notice ? { notice } : {}) }) });
}
