import { sql } from 'kysely';
import type { SlackDb } from '../slack-tables.js';

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
