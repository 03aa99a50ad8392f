import { inboxListPage } from '../../db/inbox-requests.js';
import { inboxListModal, LIST_PAGE, type InboxListPage } from './inbox-list-modal.js';
import { parseInboxListValue, type InboxList } from './inbox-lists.js';
import { inboxItems, rememberedItems } from './load-inbox.js';
import { actorOf, personOf, type Person, type SlackContext } from '../context.js';

/** Where a list button was clicked: the inbox (a modal opens) or the list's own modal (it turns the page). */
export interface ListClick extends Person {
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
  const items = await inboxItems(ctx, page.rows);
  return { list, offset, total: page.total, items: page.rows.map((r) => items.get(r.id)!) };
}
