import { sql } from 'kysely';
import type { SlackDb } from '../slack-tables.js';
import type { ThreadRow } from './threads.js';

/**
 * True for the first delivery of an event id, false for Slack's retries of it.
 * The primary key makes this hold across instances.
 */
export async function claimEvent(db: SlackDb, eventId: string): Promise<boolean> {
  const row = await db
    .insertInto('slack_events')
    .values({ event_id: eventId })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Slack stops retrying after about an hour; older ids only take space. */
export async function pruneEvents(db: SlackDb, olderThanMs = 24 * 3_600_000): Promise<number> {
  const result = await db
    .deleteFrom('slack_events')
    .where('received_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanMs / 1000})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * claimEvent for a message that starts a run, recording the run's thread in
 * the same statement: one commit instead of two, and no run is ever on record
 * for a delivery that was a retry.
 */
export async function claimEventStartingRun(db: SlackDb, eventId: string, thread: ThreadRow): Promise<boolean> {
  const result = await sql<{ event_id: string }>`
    WITH ev AS (
      INSERT INTO slack_events (event_id) VALUES (${eventId}) ON CONFLICT (event_id) DO NOTHING RETURNING event_id
    ), th AS (
      INSERT INTO slack_threads (run_id, channel, thread_ts, team_id, requester)
      SELECT ${thread.run_id}, ${thread.channel}, ${thread.thread_ts}, ${thread.team_id}, ${thread.requester} FROM ev
      ON CONFLICT (run_id) DO NOTHING
    )
    SELECT event_id FROM ev
  `.execute(db);
  return result.rows.length > 0;
}
