import { sql } from 'kysely';
import type { SlackDb } from '../tables.js';
import type { CardCopy } from '../card/cards.js';
import { pendingActionColumns, type PendingAction } from '../../db/rows.js';
import { requestOf, type Request } from '../../agent/request.js';

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
export async function loadWaitingApprovals(db: SlackDb, agentId: string, staleAfterMs: number, limit = 200): Promise<WaitingApproval[]> {
  const result = await sql<WaitingRow>`
    SELECT ${pendingActionColumns('p')},
           c.channel AS card_channel, c.thread_ts AS card_thread_ts, c.ts AS card_ts, c.copies AS card_copies,
           COALESCE((SELECT array_agg(n.notice) FROM slack_notices n
                     WHERE n.action_id = p.id
                       AND (n.sent_at IS NOT NULL OR n.claimed_at > now() - make_interval(secs => ${staleAfterMs / 1000}))), '{}') AS sent
    FROM pending_actions p
    JOIN slack_cards c ON c.action_id = p.id
    WHERE p.status = 'pending' AND p.kind = 'approval' AND p.expires_at > now() AND p.path->>0 = ${agentId}
    ORDER BY p.expires_at
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
 * Returns the claims won, as `${actionId}/${notice}`.
 */
export async function claimNotices(db: SlackDb, claims: { actionId: number; notice: string }[], staleAfterMs: number): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const result = await sql<{ action_id: number; notice: string }>`
    INSERT INTO slack_notices (action_id, notice)
    SELECT c.action_id, c.notice FROM jsonb_to_recordset(${JSON.stringify(claims.map((c) => ({ action_id: c.actionId, notice: c.notice })))}::jsonb)
      AS c(action_id integer, notice text)
    ON CONFLICT (action_id, notice) DO UPDATE SET claimed_at = now()
      WHERE slack_notices.sent_at IS NULL AND slack_notices.claimed_at <= now() - make_interval(secs => ${staleAfterMs / 1000})
    RETURNING action_id, notice
  `.execute(db);
  return new Set(result.rows.map((r) => `${r.action_id}/${r.notice}`));
}

/** The notice went out (or was attempted: a Slack error is not retried); its claim is never taken again. */
export async function markNoticeSent(db: SlackDb, actionId: number, notice: string): Promise<void> {
  await sql`UPDATE slack_notices SET sent_at = now() WHERE action_id = ${actionId} AND notice = ${notice}`.execute(db);
}
