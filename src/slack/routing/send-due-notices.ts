import { approversAt } from '../../approvals/approvers-at.js';
import { dueNotices, type NoticeName } from '../../approvals/due-notices.js';
import type { Requirement } from '../../approvals/requirement-for.js';
import { escalationText, lastWarningText, reminderText, type NoticeFacts } from '../kit/notice-text.js';
import { showCardUpdate } from '../card/show-card-update.js';
import { refreshHomesFor } from '../card/lifecycle.js';
import { findRequest, type SlackContext } from '../context.js';
import { renderCard } from '../card/render-card.js';
import { dmRecipients, sendDmCopies } from './card-copies.js';
import { sql } from 'kysely';
import type { SlackDb } from '../context.js';
import type { CardCopy } from '../card/cards.js';
import { pendingActionColumns, type PendingAction } from '../../db/rows.js';
import { requestOf, type Request } from '../../agent/request.js';

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

/** A waiting approval request as the notice sweep needs it: the request, its card, what was already sent. */
export interface WaitingApproval {
  /** Its expiry is always set: only requests still before theirs are read. */
  request: Request & { expiresAt: Date };
  card_channel: string | null;
  card_thread_ts: string | null;
  card_ts: string | null;
  card_copies: CardCopy[];
  sent: string[];
}

type WaitingRow = PendingAction & Omit<WaitingApproval, 'request'>;

/**
 * The pending approval requests of `agentId` with a card, soonest to expire first, each with the
 * notices already sent or claimed within `staleAfterMs` (a claim older than that whose notice was
 * never sent is due again). One read per sweep; what is due is worked out from it.
 */
async function loadWaitingApprovals(db: SlackDb, agentId: string, staleAfterMs: number, limit = 200): Promise<WaitingApproval[]> {
  const result = await sql<WaitingRow>`
    SELECT ${pendingActionColumns('p')},
           c.channel AS card_channel, c.thread_ts AS card_thread_ts, c.ts AS card_ts, c.copies AS card_copies,
           COALESCE((SELECT array_agg(n.notice) FROM slack_notices n
                     WHERE n.action_id = p.id
                       AND (n.sent_at IS NOT NULL OR n.claimed_at > now() - make_interval(secs => ${staleAfterMs / 1000}))), '{}') AS sent
    FROM pending_actions p
    JOIN slack_cards c ON c.action_id = p.id
    WHERE p.status = 'pending' AND p.kind = 'approval' AND p.expires_at > now() AND p.path->>0 = ${agentId}
    ORDER BY p.expires_at, p.id
    LIMIT ${limit}
  `.execute(db);
  return result.rows.map(({ card_channel, card_thread_ts, card_ts, card_copies, sent, ...row }) => ({
    request: requestOf(row) as WaitingApproval['request'],
    card_channel,
    card_thread_ts,
    card_ts,
    card_copies,
    sent,
  }));
}

/**
 * Claims notices for this instance in one statement, so of two sweeps that find the same notice
 * due, one gets it back and sends it, the other sends nothing. A notice already claimed is won
 * again only when it was never sent and its claim is older than `staleAfterMs` (its instance
 * stopped before posting); the conflict's row lock makes that re-claim one instance's too.
 * Claimed in the order of their keys, whatever order they were found in: two sweeps claiming the
 * same notices then wait for each other at most, never each for a claim the other holds (requests
 * asked in one step expire at the same moment, and their order in the read is the plan's).
 * Returns the claims won, as `${actionId}/${notice}`.
 */
async function claimNotices(db: SlackDb, claims: { actionId: number; notice: string }[], staleAfterMs: number): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const result = await sql<{ action_id: number; notice: string }>`
    INSERT INTO slack_notices (action_id, notice)
    SELECT c.action_id, c.notice FROM jsonb_to_recordset(${JSON.stringify(claims.map((c) => ({ action_id: c.actionId, notice: c.notice })))}::jsonb)
      AS c(action_id integer, notice text)
    ORDER BY c.action_id, c.notice
    ON CONFLICT (action_id, notice) DO UPDATE SET claimed_at = now()
      WHERE slack_notices.sent_at IS NULL AND slack_notices.claimed_at <= now() - make_interval(secs => ${staleAfterMs / 1000})
    RETURNING action_id, notice
  `.execute(db);
  return new Set(result.rows.map((r) => `${r.action_id}/${r.notice}`));
}

/** The notice went out (or was attempted: a Slack error is not retried); its claim is never taken again. */
async function markNoticeSent(db: SlackDb, actionId: number, notice: string): Promise<void> {
  await sql`UPDATE slack_notices SET sent_at = now() WHERE action_id = ${actionId} AND notice = ${notice}`.execute(db);
}
