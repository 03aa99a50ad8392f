import { homeView, HOME_FIT } from './inbox-blocks.js';
import { isActionId } from '../../db/is-action-id.js';
import { actorOf, type SlackContext, personOf } from '../context.js';
import { outsideWorkspaceMessage } from '../../approvals/workspace.js';
import { homePageOf, setHomePage } from './home-viewers.js';
import { emptyInbox, loadInbox } from './load-inbox.js';
import type { BlockAction, ButtonAction, RespondFn } from '@slack/bolt';
import { approvalsList } from './approvals-command.js';

/**
 * Draws `user`'s inbox, at the page of waiting requests they are on, and publishes it as their
 * Home tab, with `notice` on top when given. The event that opens a Home does not say whose team
 * the viewer is in: users.info does (cached), and someone outside the workspace gets a Home that
 * lists nothing and says why.
 */
export async function showHome(ctx: SlackContext, user: string, notice?: string): Promise<void> {
  const who = { user, teamId: await ctx.userTeams(user) };
  if (ctx.agent.isOutsider(actorOf(who))) {
    ctx.logger.info({ user, teamId: who.teamId }, 'Home of someone outside the workspace: nothing listed');
    await ctx.client.views.publish({ user_id: user, view: homeView({ ...emptyInbox, notice: outsideWorkspaceMessage }) });
    return;
  }
  const inbox = await loadInbox(ctx, who, HOME_FIT, await homePageOf(ctx.slackDb, user));
  await ctx.client.views.publish({ user_id: user, view: homeView({ ...inbox, ...(notice ? { notice } : {}) }) });
}

/**
 * "Next page" or "First page" in the inbox: on the Home tab the page is kept for the person (every
 * instance draws it from then on, until they open the Home again) and the Home republished; in
 * an /approvals answer the answer is replaced by that page. The button only names where the page
 * starts; what is on it is read for the clicker as any inbox is.
 */
export async function showInboxPage(ctx: SlackContext, body: BlockAction<ButtonAction>, action: ButtonAction, respond: RespondFn): Promise<void> {
  const user = body.user?.id;
  const page = parseInboxPage(action.value);
  if (!user || !page) return void ctx.logger.warn({ user, value: action.value }, 'inbox page click that names no page');
  if ((body.container as { type?: unknown }).type === 'view') {
    await setHomePage(ctx.slackDb, user, page.after);
    await ctx.home?.republish(user);
    return;
  }
  const answer = await approvalsList(ctx, personOf(body), page.after);
  await respond({ replace_original: true, response_type: 'ephemeral', text: answer.text, ...(answer.blocks ? { blocks: answer.blocks } : {}) });
}

/** The page a page button asks for: `{}` for the first, `{ after }` for the one after request `after`; undefined when the value is not one of ours. */
export function parseInboxPage(value: string | undefined): { after?: number } | undefined {
  if (value === 'first') return {};
  const m = /^after:([1-9]\d{0,9})$/.exec(value ?? '');
  const after = Number(m?.[1]);
  return m && isActionId(after) ? { after } : undefined;
}
