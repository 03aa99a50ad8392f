import { argsDiff } from '../../approvals/args-diff.js';
import { inboxRequests, type InboxRow } from '../../db/inbox-requests.js';
import { requestOf, type Request } from '../../agent/request.js';
import type { RememberedGrant } from '../../db/remembered-grants.js';
import { editDiffText } from '../kit/edit-diff-text.js';
import type { KnownBlock } from '@slack/types';
import { HOME_FIT, MESSAGE_FIT, inboxBlocks, threadLink, type InboxData, type InboxFit, type InboxItem, type RememberedItem } from './inbox-blocks.js';
import { actorOf, type Person, type SlackContext } from '../context.js';
import { findCards, findThreads } from '../card/cards.js';
import { describedCall, editShown, boundOf, unattendedOf } from '../card/render-card.js';
import type { RequestView } from '../../agent/request-view.js';

/**
 * A person's inbox: one page of the open requests they may approve and have not voted on
 * (Agent.waitingFor: mayDecide's rule, groups, escalation and limits included, counted exactly,
 * oldest first, starting after request `after`); their own requests; and their decisions; each
 * in words, as its card describes it, with the link to its card.
 */
export async function loadInbox(ctx: SlackContext, who: Person, fit: InboxFit, after?: number): Promise<Omit<InboxData, 'notice'>> {
  // Someone outside the workspace has no inbox here: nothing of any request is read for them.
  if (ctx.agent.isOutsider(actorOf(who))) return emptyInbox;
  const user = who.user;
  const [page, rows] = await Promise.all([
    ctx.agent.waitingFor(actorOf(who), { ...(after !== undefined ? { after } : {}), limit: fit.waitingPage }),
    inboxRequests(ctx.slackDb, ctx.agent.id, user, { requested: fit.maxListed, decided: fit.maxListed }),
  ]);
  const waiting = page.requests.map(requestOf);
  const requested = rows.requested.map(inboxRequestOf);
  const decided = rows.decided.map(inboxRequestOf);
  const [items, remembered] = await Promise.all([inboxItems(ctx, [...waiting, ...requested, ...decided]), loadRemembered(ctx, who, fit)]);
  return {
    waiting: page.requests.map((r) => items.get(r.id)!),
    waitingTotal: page.total,
    waitingBefore: page.before,
    requested: rows.requested.map((r) => items.get(r.id)!),
    requestedTotal: rows.requestedTotal,
    decided: rows.decided.map((r) => items.get(r.id)!),
    decidedTotal: rows.decidedTotal,
    ...(remembered ? { remembered } : {}),
  };
}

/**
 * Requests as the inbox shows them, by id: each in words (describedCall), what an edit changed, the
 * request an edit replaced it with, what its approval is bound to (the agent's reason, the
 * preview, a freeze), who asked when no person did, and the link to its card, or, for a request without one (a
 * call run under a remembered approval), to its run's thread; Approve on a high-risk one asks to
 * confirm, as on the card. At most two statements, for all; each item drawn from its request's
 * view (Agent.viewRequest), so one policy evaluation per item, as for a card.
 */
export async function inboxItems(ctx: SlackContext, requests: readonly InboxRequest[]): Promise<Map<number, InboxItem>> {
  const cards = await findCards(ctx.slackDb, requests.map((r) => r.id));
  const cardless = requests.filter((r) => !cards.has(r.id));
  const threads = await findThreads(ctx.slackDb, cardless.map((r) => r.rootRunId));
  const items = new Map<number, InboxItem>();
  for (const action of requests) {
    const card = cards.get(action.id);
    const thread = card ? undefined : threads.get(action.rootRunId);
    const link = card ? threadLink(ctx.teamUrl, card) : thread ? threadLink(ctx.teamUrl, { channel: thread.channel, ts: thread.thread_ts ?? thread.message_ts ?? '', thread_ts: thread.thread_ts }) : undefined;
    // Each call of a batch card stays its own request here, decided on its own; the line says which call it is.
    const position = card?.batch ? card.batch.indexOf(action.id) + 1 : 0;
    const view = ctx.agent.viewRequest(action);
    const { title, fields, own, risk } = describedCall(action.toolName, action.args, view.description);
    const bound = boundOf(view.binding, view.requirement);
    const unattended = unattendedOf(action, ctx.agent.id);
    items.set(action.id, {
      action,
      call: { title, fields, own },
      ...(link ? { link } : {}),
      ...(position > 0 ? { batch: { position, size: card!.batch!.length } } : {}),
      // What the card says of risk, the inbox's Approve says too (no statement: the tool and policy are in memory).
      ...(risk === 'high' && action.status === 'pending' ? { highRisk: { title } } : {}),
      ...(action.edit ? { edited: { editor: action.edit.editor, line: editedLine(view, action) } } : {}),
      ...(action.replacedBy !== undefined ? { replacedBy: action.replacedBy } : {}),
      ...(bound ? { bound } : {}),
      ...(unattended ? { unattended } : {}),
    });
  }
  return items;
}

/** A request as the inbox lists it: for one an edit closed, the request that took its place. */
export type InboxRequest = Request & { replacedBy?: number };

/** A row of the person's own lists (db/inbox-requests) as the inbox reads it. */
export function inboxRequestOf(row: InboxRow): InboxRequest {
  const request = requestOf(row);
  return row.replaced_by !== null && row.replaced_by !== undefined ? { ...request, replacedBy: row.replaced_by } : request;
}

/** What an edit changed, as the card says it ("Edited by @bob: Amount $25.00 → $15.00"). */
function editedLine(view: RequestView, action: Request): string {
  const shown = editShown(view.description.inputSchema, action.args);
  return editDiffText(action.edit!.editor, argsDiff(action.edit!.proposedArgs, action.args), shown.format, 400, shown.label);
}

/** The Home tab lists remembered approvals the person may revoke; the shorter /approvals list does not. */
async function loadRemembered(ctx: SlackContext, who: Person, fit: InboxFit): Promise<RememberedItem[] | undefined> {
  if (fit !== HOME_FIT) return undefined;
  return rememberedItems(ctx, await ctx.agent.listRememberedGrants(actorOf(who)));
}

/** Remembered approvals as the inbox lists them, the calls they allow in words. */
export function rememberedItems(ctx: SlackContext, grants: readonly RememberedGrant[]): RememberedItem[] {
  return grants.map((g) => {
    // A grant is no request: its call is described from the facts it shares with one (RequestFacts).
    const { title, fields, own } = describedCall(g.tool_name, g.args, ctx.agent.describeCall({ tool_name: g.tool_name, args: g.args, path: g.path }));
    return { id: g.id, toolName: g.tool_name, call: { title, fields, own }, requester: g.requester, createdBy: g.created_by, expiresAt: new Date(g.expires_at) };
  });
}

/** An inbox with nothing in it: what someone outside the workspace is shown. */
export const emptyInbox: Omit<InboxData, 'notice'> = Object.freeze({
  waiting: [],
  waitingTotal: 0,
  waitingBefore: 0,
  requested: [],
  requestedTotal: 0,
  decided: [],
  decidedTotal: 0,
});

/** What `/approvals` answers with: its text, and the blocks that show it. */
export interface CommandAnswer {
  text: string;
  blocks?: KnownBlock[];
}

/** The /approvals list: the person's inbox with the page of waiting requests after request `after` (undefined: the oldest). */
export async function approvalsList(ctx: SlackContext, who: Person, after?: number): Promise<CommandAnswer> {
  const inbox = await loadInbox(ctx, who, MESSAGE_FIT, after);
  return { text: `${inbox.waitingTotal} ${inbox.waitingTotal === 1 ? 'request is' : 'requests are'} waiting for you.`, blocks: inboxBlocks(inbox, MESSAGE_FIT) };
}
