import { sql } from 'kysely';
import { pendingActionColumns, type PendingAction } from '../../db/rows.js';
import type { SlackDb } from '../tables.js';
import type { CardRow } from './cards.js';
import { blockedSql } from './card-state-key.js';

/** Everything drawing a card needs, read together. */
export interface CardState {
  action: PendingAction;
  /** Where the card was posted; absent when it never was (or its location could not be stored). */
  card?: CardRow;
  /**
   * An approved call stopped at the gate because what was about to run no
   * longer matched what was approved. The audit log is where the runtime
   * records that, so any instance draws the card the same way.
   */
  blocked: boolean;
  /** Why it was blocked, as the latest `blocked` audit event of its call says (`detail.reason`). */
  blockedReason?: string;
}


/**
 * The request's current row, its card's location and whether it was blocked,
 * in one read: a click and a redraw each need all three, and a round trip
 * costs more than the join.
 */
export async function loadCardState(db: SlackDb, actionId: number): Promise<CardState | undefined> {
  return (await loadCardStates(db, [actionId]))[0];
}

/** The same for several requests (a batch card's members) in one read, in the order asked; unknown ids are left out. */
export async function loadCardStates(db: SlackDb, actionIds: readonly number[]): Promise<CardState[]> {
  if (actionIds.length === 0) return [];
  const result = await sql<PendingAction & { card: CardRow | null; blocked: boolean; blocked_reason: string | null }>`
    SELECT ${pendingActionColumns('p')},
      (SELECT jsonb_build_object('action_id', c.action_id, 'channel', c.channel, 'ts', c.ts, 'thread_ts', c.thread_ts, 'kind', c.kind, 'drawn', c.drawn, 'copies', c.copies, 'batch', c.batch)
       FROM slack_cards c WHERE c.action_id = p.id) AS card,
      ${blockedSql('p')} AS blocked,
      (SELECT a.detail->>'reason' FROM audit_events a
       WHERE p.kind = 'approval' AND p.status = 'approved' AND a.run_id = p.run_id AND a.tool_call_id = p.tool_call_id AND a.event = 'blocked'
       ORDER BY a.id DESC LIMIT 1) AS blocked_reason
    FROM pending_actions p
    WHERE p.id = ANY(${sql.val([...actionIds])}::integer[])
  `.execute(db);
  const byId = new Map(
    result.rows.map((row) => {
      const { card, blocked, blocked_reason, ...action } = row;
      return [action.id, { action, ...(card ? { card } : {}), blocked, ...(blocked && blocked_reason ? { blockedReason: blocked_reason } : {}) } satisfies CardState];
    }),
  );
  return actionIds.flatMap((id) => byId.get(id) ?? []);
}
