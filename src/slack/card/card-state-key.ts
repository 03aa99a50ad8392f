import { sql } from 'kysely';
import type { PendingAction } from '../../db/rows.js';

/**
 * What a card shows of its request, as a short key: the status, how many
 * approvals it has, and whether the approved call was blocked at the gate.
 * Two draws with the same key look the same; slack_cards.drawn holds the key
 * a card was last seen to show, so a card whose key differs from its
 * request's (a redraw that failed, landed out of order or never happened) is
 * found and redrawn. cardStateKeySql computes the same key in SQL.
 */
export function cardStateKey(action: Pick<PendingAction, 'status' | 'approvals'>, blocked: boolean): string {
  return `${action.status}:${action.approvals.length}${blocked ? ':blocked' : ''}`;
}

/** Whether the approved call of the request in `p` was stopped at its grant check (see loadCardState). */
export const blockedSql = (p: string) =>
  sql.raw(`(${p}.kind = 'approval' AND ${p}.status = 'approved' AND EXISTS (
        SELECT 1 FROM audit_events a
        WHERE a.run_id = ${p}.run_id AND a.tool_call_id = ${p}.tool_call_id AND a.event = 'blocked'))`);

/** cardStateKey of the pending_actions row aliased `p`. */
export const cardStateKeySql = (p: string) =>
  sql`(${sql.raw(p)}.status || ':' || jsonb_array_length(${sql.raw(p)}.approvals) || CASE WHEN ${blockedSql(p)} THEN ':blocked' ELSE '' END)`;
