import { homeView, HOME_FIT } from '../blocks/inbox-blocks.js';
import type { SlackContext } from '../slack-context.js';
import { homePageOf } from '../store/home-viewers.js';
import { loadInbox } from './load-inbox.js';

/** Draws `user`'s inbox, at the page of waiting requests they are on, and publishes it as their Home tab, with `notice` on top when given. */
export async function publishHome(ctx: SlackContext, user: string, notice?: string): Promise<void> {
  const inbox = await loadInbox(ctx, user, HOME_FIT, await homePageOf(ctx.slackDb, user));
  await ctx.client.views.publish({ user_id: user, view: homeView({ ...inbox, ...(notice ? { notice } : {}) }) });
}
