import type { ThreadTarget, SlackContext } from '../context.js';
import type { Selectable } from 'kysely';
import type { SlackDb, SlackTables } from '../tables.js';
import type { Request } from '../../agent/request.js';
import { findCard, type CardRow } from './cards.js';

/**
 * Where a top-level run talks: its channel and thread (null thread: a DM's top level), who asked
 * and the message that asked (it carries the working reaction meanwhile).
 */
export type ThreadRow = Omit<Selectable<SlackTables['slack_threads']>, 'created_at'>;

/** Where to post in a run's thread. */
export function threadTarget(thread: Pick<ThreadRow, 'channel' | 'thread_ts'>): ThreadTarget {
  return { channel: thread.channel, ...(thread.thread_ts ? { threadTs: thread.thread_ts } : {}) };
}

export async function findThread(db: SlackDb, runId: string): Promise<ThreadRow | undefined> {
  return db
    .selectFrom('slack_threads')
    .select(['run_id', 'channel', 'thread_ts', 'team_id', 'requester', 'message_ts'])
    .where('run_id', '=', runId)
    .executeTakeFirst();
}

/** The threads of these top-level runs, by run id (one statement; none for no runs). */
export async function findThreads(db: SlackDb, runIds: readonly string[]): Promise<Map<string, ThreadRow>> {
  if (runIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('slack_threads')
    .select(['run_id', 'channel', 'thread_ts', 'team_id', 'requester', 'message_ts'])
    .where('run_id', 'in', [...new Set(runIds)])
    .execute();
  return new Map(rows.map((r) => [r.run_id, r]));
}

/** Records a run's thread on its own (claimEventStartingRun does it with the claim on the common path). */
export async function recordThread(db: SlackDb, thread: ThreadRow): Promise<void> {
  await db.insertInto('slack_threads').values(thread).onConflict((oc) => oc.column('run_id').doNothing()).execute();
}

/**
 * Where a run's continuation talks: beside the card, else in the run's thread,
 * else where the click was. `known` is the card as the caller just read it
 * (showCardUpdate returns it), to save reading it again.
 */
export async function targetForAction(
  ctx: SlackContext,
  action: Pick<Request, 'id' | 'rootRunId'>,
  fallback?: ThreadTarget,
  known?: { card: CardRow | undefined },
): Promise<ThreadTarget | undefined> {
  const card = known ? known.card : await findCard(ctx.slackDb, action.id);
  if (card) return { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) };
  const thread = await findThread(ctx.slackDb, action.rootRunId);
  if (thread) return threadTarget(thread);
  return fallback;
}
