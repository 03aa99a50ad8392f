import { approversAt } from '../../approvals/approvers-at.js';
import { dueNotices, type NoticeName } from '../../approvals/due-notices.js';
import type { Requirement } from '../../approvals/requirement-for.js';
import { escalationText, lastWarningText, reminderText, type NoticeFacts } from '../kit/notice-text.js';
import { refreshHomesFor } from '../card/inbox-refresh.js';
import { findRequest, type SlackContext } from '../context.js';
import { claimNotices, loadWaitingApprovals, markNoticeSent, type WaitingApproval } from './claim-notices.js';
import { showCardUpdate } from '../card/show-card-update.js';
import { renderCard } from '../card/render-card.js';
import { dmRecipients, sendDmCopies } from './card-copies.js';

interface Planned {
  waiting: WaitingApproval;
  notice: NoticeName;
  requirement: Requirement;
}

/**
 * The sweep's reminders, last warnings and escalations: works out what is due from the waiting
 * requests and the current policy (one read), claims it (one write; each notice is won by one
 * instance only), and hands each notice it won to a background task. Nothing of this runs on a
 * request's own path, and nothing is kept in memory between sweeps. A notice claimed by an
 * instance that stopped before sending it is claimed again after `staleAfterMs`. Returns how many
 * it claimed.
 */
export async function showDueNotices(ctx: SlackContext, staleAfterMs: number, now = new Date()): Promise<number> {
  const waiting = await loadWaitingApprovals(ctx.slackDb, ctx.agent.id, staleAfterMs);
  const planned: Planned[] = [];
  for (const w of waiting) {
    const requirement = ctx.agent.requirementOf(w.request);
    const due = dueNotices(requirement.reach, { createdAt: w.request.createdAt, expiresAt: w.request.expiresAt, sent: new Set(w.sent), now });
    for (const notice of due) planned.push({ waiting: w, notice, requirement });
  }
  if (planned.length === 0) return 0;
  const won = await claimNotices(
    ctx.slackDb,
    planned.map((p) => ({ actionId: p.waiting.request.id, notice: p.notice })),
    staleAfterMs,
  );
  const mine = planned.filter((p) => won.has(`${p.waiting.request.id}/${p.notice}`));
  for (const p of mine) ctx.tasks.run('approval notice', () => sendNotice(ctx, p, now));
  return mine.length;
}

async function sendNotice(ctx: SlackContext, p: Planned, now: Date): Promise<void> {
  const { waiting, notice, requirement } = p;
  const { request } = waiting;
  const voted = new Set(request.approvals.map((a) => a.userId));
  const listed = new Set(requirement.approvers);
  const to =
    notice === 'escalate'
      ? requirement.reach.escalateTo.filter((id) => !listed.has(id) && !voted.has(id))
      : approversAt(requirement, request.createdAt, now).filter((id) => !voted.has(id));
  const facts: NoticeFacts = { actionId: request.id, toolName: request.toolName, expiresAt: request.expiresAt, to, notify: requirement.reach.notify };
  const text = notice === 'escalate' ? escalationText(facts) : notice === 'warn' ? lastWarningText(facts) : reminderText(facts);
  const log = ctx.logger.child({ actionId: request.id, notice });
  if (waiting.card_channel === null) return markNoticeSent(ctx.slackDb, request.id, notice);
  // Under the card (in its thread, or in a thread of its own when the card is at a DM's top level),
  // and under each routed copy that is still someone's to decide: an approvals channel's, or the DM
  // copy of an approver who has not voted.
  // (The escalation is for the people it adds, who have no DM copy.)
  const stillTheirs = (user: string | undefined) => (user === undefined ? true : notice !== 'escalate' && !voted.has(user));
  const places = [
    { channel: waiting.card_channel, thread_ts: waiting.card_thread_ts ?? waiting.card_ts ?? undefined },
    ...waiting.card_copies.filter((c) => stillTheirs(c.user)).map((c) => ({ channel: c.channel, thread_ts: c.ts })),
  ];
  for (const place of places) {
    try {
      await ctx.client.chat.postMessage({ channel: place.channel, ...(place.thread_ts ? { thread_ts: place.thread_ts } : {}), text });
    } catch (error) {
      // Claimed and not sent: notices are at most once, and a missed reminder is not worth a second ping later.
      log.warn({ err: error, channel: place.channel }, 'approval notice could not be posted');
    }
  }
  await markNoticeSent(ctx.slackDb, request.id, notice);
  log.info({ to, places: places.length }, 'approval notice sent');
  if (notice !== 'escalate') return;
  // The escalated approvers are now on the card and in their Home inbox too; where the request
  // went to DMs, so do they.
  await showCardUpdate(ctx, request.id);
  const action = await findRequest(ctx, request.id);
  if (!action || action.status !== 'pending') return;
  refreshHomesFor(ctx, action);
  if (!waiting.card_copies.some((c) => c.user !== undefined)) return;
  const had = new Set(waiting.card_copies.flatMap((c) => (c.user ? [c.user] : [])));
  const people = (await dmRecipients(ctx, to, action, requirement.reach.dmLimit, requirement.allowSelfApproval)).filter((u) => !had.has(u));
  const copies = await sendDmCopies(ctx, action.id, people, renderCard(ctx.agent, action, { blocked: false }));
  for (const copy of copies) {
    await ctx.client.chat.postMessage({ channel: copy.channel, thread_ts: copy.ts, text }).catch((error: unknown) => log.warn({ err: error }, 'escalation could not be told by DM'));
  }
}
