import type { BlockAction, ButtonAction, RespondFn } from '@slack/bolt';
import { sql } from 'kysely';
import { homeView, HOME_FIT, inboxListModal, LIST_PAGE, type InboxListPage, parseInboxListValue, type InboxList } from './inbox-blocks.js';
import { isActionId } from '../../db/is-action-id.js';
import { actorOf, type SlackContext, personOf, type Person } from '../context.js';
import { outsideWorkspaceMessage } from '../../approvals/workspace.js';
import { emptyInbox, loadInbox, inboxItems, inboxRequestOf, rememberedItems } from './load-inbox.js';
import { approvalsList } from './approvals-command.js';
import { inboxListPage } from '../../db/inbox-requests.js';
import type { SlackDb } from '../tables.js';

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

/** Where a list button was clicked: the inbox (a modal opens) or the list's own modal (it turns the page). */
interface ListClick extends Person {
  value: string | undefined;
  triggerId?: string;
  /** Set when the click came from a modal: the one to draw the page in. */
  modalId?: string;
}

/** A click on a list button, or a Revoke in a list's modal (value: the page the modal shows). */
export function listClickOf(body: { user: { id: string; team_id?: string }; team?: { id?: string } | null; trigger_id?: string; view?: { id: string; type?: string } }, value: string | undefined): ListClick {
  return {
    ...personOf(body),
    value,
    ...(body.trigger_id ? { triggerId: body.trigger_id } : {}),
    ...(body.view?.type === 'modal' ? { modalId: body.view.id } : {}),
  };
}

/**
 * "Show all" under a list of the inbox, and Newer / Older in its modal: the page the button
 * names, of the clicker's own list, read for them as the inbox is (someone outside the
 * workspace is shown nothing), in a modal opened over the inbox or drawn in place.
 */
export async function showInboxList(ctx: SlackContext, click: ListClick): Promise<void> {
  const asked = parseInboxListValue(click.value);
  if (!asked) return void ctx.logger.warn({ user: click.user, value: click.value }, 'inbox list click that names no list');
  if (ctx.agent.isOutsider(actorOf(click))) return void ctx.logger.info({ user: click.user, teamId: click.teamId }, 'inbox list refused: not a member of this workspace');
  const view = inboxListModal(await listPage(ctx, click, asked.list, asked.offset));
  try {
    if (click.modalId) await ctx.client.views.update({ view_id: click.modalId, view });
    else if (click.triggerId) await ctx.client.views.open({ trigger_id: click.triggerId, view });
    else ctx.logger.warn({ user: click.user }, 'inbox list click without a trigger');
  } catch (error) {
    ctx.logger.warn({ err: error, user: click.user, list: asked.list }, 'inbox list could not be shown');
  }
}

/** One page of the person's list: their requests or decisions (newest first), or the remembered approvals they may revoke. */
async function listPage(ctx: SlackContext, who: Person, list: InboxList, offset: number): Promise<InboxListPage> {
  if (list === 'remembered') {
    const grants = await ctx.agent.listRememberedGrants(actorOf(who));
    return { list, offset, total: grants.length, items: rememberedItems(ctx, grants.slice(offset, offset + LIST_PAGE)) };
  }
  const page = await inboxListPage(ctx.slackDb, ctx.agent.id, who.user, list, offset, LIST_PAGE);
  const items = await inboxItems(ctx, page.rows.map(inboxRequestOf));
  return { list, offset, total: page.total, items: page.rows.map((r) => items.get(r.id)!) };
}

/** Viewers kept current for a request anyone may decide: the most recent this many. */
const EVERYONE_MAX = 1000;

/** `user` opened their Home tab (on this instance or any other): it shows the oldest waiting requests first again. */
export async function recordHomeViewer(db: SlackDb, user: string): Promise<void> {
  await sql`
    INSERT INTO slack_home_viewers (user_id) VALUES (${user})
    ON CONFLICT (user_id) DO UPDATE SET opened_at = now(), waiting_after = NULL
  `.execute(db);
}

/** The page of waiting requests `user`'s Home shows from now on: those after request `after` (undefined: the oldest). */
async function setHomePage(db: SlackDb, user: string, after: number | undefined): Promise<void> {
  await sql`
    INSERT INTO slack_home_viewers (user_id, waiting_after) VALUES (${user}, ${after ?? null})
    ON CONFLICT (user_id) DO UPDATE SET waiting_after = EXCLUDED.waiting_after
  `.execute(db);
}

/** Where `user`'s Home page of waiting requests starts (undefined: the oldest). */
async function homePageOf(db: SlackDb, user: string): Promise<number | undefined> {
  const row = await db.selectFrom('slack_home_viewers').select('waiting_after').where('user_id', '=', user).executeTakeFirst();
  return row?.waiting_after ?? undefined;
}

/** Of `users`, those who have opened their Home; 'everyone': the most recent viewers. */
export async function homeViewersAmong(db: SlackDb, users: readonly string[] | 'everyone'): Promise<string[]> {
  if (users !== 'everyone' && users.length === 0) return [];
  const rows =
    users === 'everyone'
      ? await db.selectFrom('slack_home_viewers').select('user_id').orderBy('opened_at', 'desc').limit(EVERYONE_MAX).execute()
      : await db.selectFrom('slack_home_viewers').select('user_id').where('user_id', 'in', [...new Set(users)]).execute();
  return rows.map((r) => r.user_id);
}
