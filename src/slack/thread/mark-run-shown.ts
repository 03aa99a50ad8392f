import { sql } from 'kysely';
import type { DrawnMark } from '../card/update-card.js';
import type { SlackDb } from '../tables.js';

/**
 * A run's outcome is in its thread: its kept answer (run_results) and any
 * claim to repair it go, the thread is free for the next run, and the cards
 * drawn on the way are recorded as showing what they show (see DrawnMark).
 * One statement, after the answer (or the failure) was posted.
 */
export async function markRunShown(db: SlackDb, runId: string, drawn: DrawnMark[] = []): Promise<void> {
  await sql`
    WITH result AS (DELETE FROM run_results WHERE run_id = ${runId}),
         repair AS (DELETE FROM slack_result_repairs WHERE run_id = ${runId})${drawn.length ? sql`,
         drawn AS (${drawnUpdate(drawn)})` : sql``}
    DELETE FROM slack_thread_locks WHERE run_id = ${runId}
  `.execute(db);
}

/** Records the drawn marks on their own, for a stream that ended without its run's outcome (it paused again). */
export async function markCardsDrawn(db: SlackDb, drawn: DrawnMark[]): Promise<void> {
  if (drawn.length > 0) await drawnUpdate(drawn).execute(db);
}

function drawnUpdate(drawn: DrawnMark[]) {
  return sql`
    UPDATE slack_cards c SET drawn = m.key, drawn_at = now(), repair_claimed_at = NULL
    FROM jsonb_to_recordset(${JSON.stringify(drawn.map((d) => ({ action_id: d.actionId, key: d.key })))}::jsonb) AS m(action_id integer, key text)
    WHERE c.action_id = m.action_id`;
}
