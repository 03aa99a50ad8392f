import { sql, type RawBuilder } from 'kysely';
import type { SlackDb } from '../context.js';
import { CachedStatement } from '../../db/cached-statement.js';
import type { ThreadRow } from '../card/cards.js';

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
type StartClaim = 'duplicate' | 'start' | 'busy';

/** The conversation a run would start in, and how old a lock must be before a stopped process's is taken over. */
interface ThreadLockTarget {
  agentId: string;
  threadId: string;
  resourceId: string;
  /** The run lease: a lock this old whose run is not on record was left by a process that stopped. */
  staleAfterMs: number;
}

/**
 * Takes the thread's lock for `thread.run_id` and records the run's thread,
 * unless a run of the agent is on record there (suspended, or at work) or
 * another run holds the lock. The lock covers what run_snapshots cannot: a run
 * that has just started and is not on record yet. Two mentions at the same
 * moment meet on the lock's primary key, on any instance: the second waits for
 * the first to commit, then finds the lock taken.
 */
function lockCte(thread: ThreadRow, where: ThreadLockTarget, after: RawBuilder<unknown>) {
  const stale = sql`make_interval(secs => ${where.staleAfterMs} / 1000.0)`;
  return sql`
    busy AS (
      SELECT 1 FROM run_snapshots
      WHERE parent_run_id IS NULL AND agent_id = ${where.agentId}
        AND thread_id = ${where.threadId} AND resource_id = ${where.resourceId}
      LIMIT 1
    ), lock AS (
      INSERT INTO slack_thread_locks (agent_id, thread_id, resource_id, run_id)
      SELECT ${where.agentId}, ${where.threadId}, ${where.resourceId}, ${thread.run_id} ${after} AND NOT EXISTS (SELECT 1 FROM busy)
      ON CONFLICT (agent_id, thread_id, resource_id) DO UPDATE SET run_id = EXCLUDED.run_id, locked_at = now()
        WHERE slack_thread_locks.locked_at < now() - ${stale}
          AND NOT EXISTS (SELECT 1 FROM run_snapshots s WHERE s.run_id = slack_thread_locks.run_id)
      RETURNING run_id
    ), th AS (
      INSERT INTO slack_threads (run_id, channel, thread_ts, team_id, requester, message_ts)
      SELECT ${thread.run_id}, ${thread.channel}, ${thread.thread_ts}, ${thread.team_id}, ${thread.requester}, ${thread.message_ts}
      FROM lock
      ON CONFLICT (run_id) DO NOTHING
    )`;
}

/**
 * claimEvent for a message that would start a run, in one statement with
 * taking the thread's lock (see lockCte) and, when it is taken, the new run's
 * thread on record. One round trip for the common case; no run is ever on
 * record for a delivery that was a retry.
 */
export async function claimEventStartingRun(db: SlackDb, eventId: string, thread: ThreadRow, where: ThreadLockTarget): Promise<StartClaim> {
  const result = await claimStartingRun.execute<{ started: boolean }>(db, '', { eventId, ...thread, ...where });
  const row = result.rows[0];
  return row === undefined ? 'duplicate' : row.started ? 'start' : 'busy';
}

// Pick: an interface has no index signature, which a statement's parameters need.
const claimStartingRun = new CachedStatement<{ eventId: string } & ThreadRow & Pick<ThreadLockTarget, keyof ThreadLockTarget>>(
  (p) => sql`
    WITH ev AS (
      INSERT INTO slack_events (event_id) VALUES (${p.eventId}) ON CONFLICT (event_id) DO NOTHING RETURNING event_id
    ), ${lockCte(p, p, sql`FROM ev WHERE true`)}
    SELECT EXISTS (SELECT 1 FROM lock) AS started FROM ev
  `,
);

/** The thread's lock alone (see lockCte), for a request whose event is already claimed; true when taken. */
export async function lockThread(db: SlackDb, thread: ThreadRow, where: ThreadLockTarget): Promise<boolean> {
  const result = await sql<{ started: boolean }>`
    WITH ${lockCte(thread, where, sql`WHERE true`)}
    SELECT EXISTS (SELECT 1 FROM lock) AS started
  `.execute(db);
  return result.rows[0]?.started === true;
}

/**
 * Frees the threads of these runs once they are no longer on record (cancelled while they
 * waited): the next request there starts at once, instead of waiting out the lock's lease. A
 * run still on record (a decision claimed it first) keeps its lock.
 */
export async function releaseThreadLocks(db: SlackDb, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await sql`
    DELETE FROM slack_thread_locks l
    WHERE l.run_id IN (${sql.join(runIds.map((id) => sql`${id}`))})
      AND NOT EXISTS (SELECT 1 FROM run_snapshots s WHERE s.run_id = l.run_id)
  `.execute(db);
}
