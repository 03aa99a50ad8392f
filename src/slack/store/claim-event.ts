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

/** What claiming a message that asks for work found: a retry, a thread free to start the run in, or a run already there. */
export type StartClaim = 'duplicate' | 'start' | 'busy';

/**
 * claimEvent for a message that would start a run, in one statement with the
 * check that no run of `agentId` is already in the thread (the same test as
 * listSuspendedRuns) and, when none is, the new run's thread on record. One
 * round trip for the common case; no run is ever on record for a delivery
 * that was a retry.
 */
export async function claimEventStartingRun(
  db: SlackDb,
  eventId: string,
  thread: ThreadRow,
  waitingIn: { agentId: string; threadId: string; resourceId: string },
): Promise<StartClaim> {
  const result = await sql<{ busy: boolean }>`
    WITH busy AS (
      SELECT 1 FROM run_snapshots
      WHERE parent_run_id IS NULL AND agent_id = ${waitingIn.agentId}
        AND thread_id = ${waitingIn.threadId} AND resource_id = ${waitingIn.resourceId}
      LIMIT 1
    ), ev AS (
      INSERT INTO slack_events (event_id) VALUES (${eventId}) ON CONFLICT (event_id) DO NOTHING RETURNING event_id
    ), th AS (
      INSERT INTO slack_threads (run_id, channel, thread_ts, team_id, requester, message_ts)
      SELECT ${thread.run_id}, ${thread.channel}, ${thread.thread_ts}, ${thread.team_id}, ${thread.requester}, ${thread.message_ts}
      FROM ev WHERE NOT EXISTS (SELECT 1 FROM busy)
      ON CONFLICT (run_id) DO NOTHING
    )
    SELECT EXISTS (SELECT 1 FROM busy) AS busy FROM ev
  `.execute(db);
  const row = result.rows[0];
  return row === undefined ? 'duplicate' : row.busy ? 'busy' : 'start';
}
