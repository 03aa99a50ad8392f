import { inboxRequests } from '../../db/inbox-requests.js';
import type { PendingAction } from '../../db/rows.js';
import { HOME_FIT, type InboxData, type InboxFit, type InboxItem } from '../blocks/inbox-blocks.js';
import type { RememberedItem } from '../blocks/remembered-blocks.js';
import { threadLink } from '../blocks/thread-link.js';
import { actorOf, type Person, type SlackContext } from '../slack-context.js';
import { findCards } from '../store/cards.js';
import { callOnCard } from '../flows/card-description.js';

/**
 * A person's inbox: one page of the open requests they may approve and have not voted on
 * (Agent.waitingFor: mayDecide's rule, groups, escalation and limits included, counted exactly,
 * oldest first, starting after request `after`); their own requests; and their decisions; each
 * with the link to its card.
 */
export async function loadInbox(ctx: SlackContext, who: Person, fit: InboxFit, after?: number): Promise<Omit<InboxData, 'notice'>> {
  // Someone outside the workspace has no inbox here: nothing of any request is read for them.
  if (ctx.agent.isOutsider(actorOf(who))) return emptyInbox;
  const user = who.user;
  const [page, rows] = await Promise.all([
    ctx.agent.waitingFor(actorOf(who), { ...(after !== undefined ? { after } : {}), limit: fit.waitingPage }),
    inboxRequests(ctx.slackDb, ctx.agent.id, user, { requested: fit.maxListed, decided: fit.maxListed }),
  ]);
  const waiting = page.requests;
  const remembered = await loadRemembered(ctx, who, fit);
  const cards = await findCards(ctx.slackDb, [...waiting, ...rows.requested, ...rows.decided].map((r) => r.id));
  const item = (action: PendingAction): InboxItem => {
    const card = cards.get(action.id);
    const link = card ? threadLink(ctx.teamUrl, card) : undefined;
    // Each call of a batch card stays its own request here, decided on its own; the line says which call it is.
    const position = card?.batch ? card.batch.indexOf(action.id) + 1 : 0;
    return { action, ...(link ? { link } : {}), ...(position > 0 ? { batch: { position, size: card!.batch!.length } } : {}) };
  };
  // What the card says of risk, the inbox's Approve says too (no statement: the tool and policy are in memory).
  const waitingItem = (action: PendingAction): InboxItem => {
    const call = callOnCard(ctx.agent, action);
    return { ...item(action), ...(call.risk === 'high' ? { highRisk: { title: call.title } } : {}) };
  };
  return {
    waiting: waiting.map(waitingItem),
    waitingTotal: page.total,
    waitingBefore: page.before,
    requested: rows.requested.map(item),
    requestedTotal: rows.requestedTotal,
    decided: rows.decided.map(item),
    decidedTotal: rows.decidedTotal,
    ...(remembered ? { remembered } : {}),
  };
}

/** The Home tab lists remembered approvals the person may revoke; the shorter /approvals list does not. */
async function loadRemembered(ctx: SlackContext, who: Person, fit: InboxFit): Promise<RememberedItem[] | undefined> {
  if (fit !== HOME_FIT) return undefined;
  const grants = await ctx.agent.listRememberedGrants(actorOf(who));
  return grants.map((g) => ({ id: g.id, toolName: g.tool_name, args: g.args, requester: g.requester, createdBy: g.created_by, expiresAt: new Date(g.expires_at) }));
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
