import { sql } from 'kysely';
import type { CardKind } from '../kit/action-ids.js';
import type { SlackDb } from '../tables.js';

export interface CardRow {
  action_id: number;
  channel: string;
  ts: string;
  thread_ts: string | null;
  kind: CardKind;
  /** The state key (cardStateKey) the card was last seen to show. */
  drawn: string | null;
  /** Copies routed to approvers (DMs, an approvals channel), redrawn with the card. */
  copies?: CardCopy[];
  /** The members of the batch card this request is on (see postBatchCard); absent or null for a card of its own. */
  batch?: number[] | null;
}

export interface CardCopy {
  channel: string;
  ts: string;
  /** The approver a DM copy went to; absent for a copy in an approvals channel. */
  user?: string;
}

/**
 * Stores where a card went and says whether its request is still pending.
 * Another instance may have decided the request between the post and this
 * write, when it could not find the card to redraw; the caller then redraws
 * it. The shared lock on the request makes the two meet: a decision either
 * lands before this read (and is seen here) or waits until the card is
 * stored (and its redraw finds it).
 */
export async function saveCard(db: SlackDb, card: CardRow): Promise<{ decidedMeanwhile: boolean }> {
  const result = await sql<{ status: string }>`
    WITH saved AS (
      INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind, drawn)
      VALUES (${card.action_id}, ${card.channel}, ${card.ts}, ${card.thread_ts}, ${card.kind}, ${card.drawn})
      ON CONFLICT (action_id) DO UPDATE
        SET channel = EXCLUDED.channel, ts = EXCLUDED.ts, thread_ts = EXCLUDED.thread_ts, kind = EXCLUDED.kind,
            drawn = EXCLUDED.drawn, drawn_at = now(), settled = false, repair_claimed_at = NULL
      RETURNING action_id
    )
    SELECT p.status FROM pending_actions p WHERE p.id = ${card.action_id} AND EXISTS (SELECT 1 FROM saved) FOR SHARE OF p
  `.execute(db);
  const status = result.rows[0]?.status;
  return { decidedMeanwhile: status !== undefined && status !== 'pending' };
}

export async function findCard(db: SlackDb, actionId: number): Promise<CardRow | undefined> {
  return db
    .selectFrom('slack_cards')
    .select(['action_id', 'channel', 'ts', 'thread_ts', 'kind', 'drawn', 'copies', 'batch'])
    .where('action_id', '=', actionId)
    .executeTakeFirst();
}

/**
 * Records copies of a card posted to the approvers. Only routed requests write this, after their
 * card is stored, so the default path costs nothing more.
 */
export async function addCardCopies(db: SlackDb, actionId: number, copies: CardCopy[]): Promise<void> {
  if (copies.length === 0) return;
  await sql`UPDATE slack_cards SET copies = copies || ${JSON.stringify(copies)}::jsonb WHERE action_id = ${actionId}`.execute(db);
}

/** Where the cards of these requests are, by action id (requests without a card are absent). */
export async function findCards(db: SlackDb, actionIds: readonly number[]): Promise<Map<number, CardRow>> {
  if (actionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('slack_cards')
    .select(['action_id', 'channel', 'ts', 'thread_ts', 'kind', 'drawn', 'copies', 'batch'])
    .where('action_id', 'in', [...new Set(actionIds)])
    .execute();
  return new Map(rows.map((r) => [r.action_id, r]));
}
