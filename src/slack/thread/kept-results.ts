import { sql } from 'kysely';
import { claimRepairs, botMessagesWithMetadata } from '../card/card-repairs.js';
import type { SlackDb, SlackContext, ThreadTarget, DrawnMark } from '../context.js';
import { ANSWER_EVENT_TYPE, answerMessages, showAnswer } from './answer-stream.js';
import { threadTarget } from '../card/cards.js';
import { clearWorkingReaction } from './assistant-status.js';
import { drawnCards, drawnMarks, drawnUpdate, type DrawnMarks } from '../card/show-card-update.js';
import { CachedStatement, oneOrAny } from '../../db/cached-statement.js';

/** A run's kept answer and where its thread is (absent when the run has no thread on record). */
interface KeptResult {
  run_id: string;
  text: string;
  finished_at: Date;
  channel: string | null;
  thread_ts: string | null;
  message_ts: string | null;
}

/**
 * Answers of `agentId`'s runs (run_results) still not shown `graceMs` after
 * their run ended: the process that ended the run stopped before posting the
 * answer, or could not post it. Each is claimed for this caller in the same
 * statement (slack_result_repairs), so one instance posts it; a claim is
 * retried once it is `graceMs` old. `graceMs` is well past the Web API's
 * retries, so an answer still being posted is not posted twice.
 */
export async function claimKeptResults(db: SlackDb, agentId: string, graceMs: number, limit = 50): Promise<KeptResult[]> {
  const ended = sql`
    SELECT r.run_id AS id, r.finished_at AS sort FROM run_results r
    WHERE r.agent_id = ${agentId} AND r.finished_at < now() - make_interval(secs => ${graceMs} / 1000.0)
  `;
  const result = await sql<KeptResult>`
    WITH claimed AS (${claimRepairs({ table: 'slack_result_repairs', key: 'run_id' }, ended, graceMs, limit)})
    SELECT r.run_id, r.text, r.finished_at, t.channel, t.thread_ts, t.message_ts
    FROM claimed JOIN run_results r ON r.run_id = claimed.run_id
    LEFT JOIN slack_threads t ON t.run_id = r.run_id
    ORDER BY r.finished_at, r.run_id
  `.execute(db);
  return result.rows;
}

/** How far back a DM's top level is searched for parts already posted, before the run ended. */
const TOP_LEVEL_LOOKBACK_S = 300;

/**
 * Posts the kept answer of a run whose process ended the run but stopped (or
 * failed) before showing it (see claimKeptResults), and lets it go. Parts the
 * process did post carry the run's id in their metadata and are not posted
 * again, so the thread gets the answer once. Clears the working reaction the
 * process left.
 */
export async function showKeptResult(ctx: SlackContext, kept: KeptResult): Promise<void> {
  const log = ctx.logger.child({ runId: kept.run_id });
  if (!kept.channel) {
    log.warn('kept answer of a run with no thread on record; let go unposted');
    await markRunShown(ctx.slackDb, kept.run_id);
    return;
  }
  const target = threadTarget({ channel: kept.channel, thread_ts: kept.thread_ts });
  const parts = answerMessages(kept.text).length;
  const posted = parts > 0 ? await postedParts(ctx, target, kept) : new Set<number>();
  await showAnswer(ctx, target, kept.text, { runId: kept.run_id }, posted);
  await markRunShown(ctx.slackDb, kept.run_id);
  log.warn({ parts, alreadyPosted: posted.size }, 'answer posted by the sweep: the process that ended the run did not show it');
  if (kept.message_ts) await clearWorkingReaction(ctx, { channel: kept.channel, ts: kept.message_ts });
}

/** The part numbers of this run's answer already in the conversation, read from the bot's messages' metadata. */
async function postedParts(ctx: SlackContext, target: ThreadTarget, kept: KeptResult): Promise<Set<number>> {
  const oldest = target.threadTs ? undefined : String(kept.finished_at.getTime() / 1000 - TOP_LEVEL_LOOKBACK_S);
  const messages = await botMessagesWithMetadata(ctx, target, ANSWER_EVENT_TYPE, oldest ? { oldest } : {});
  const found = new Set<number>();
  for (const { payload } of messages) if (payload.run_id === kept.run_id && typeof payload.part === 'number') found.add(payload.part);
  return found;
}

/** Most runs let go in one statement. */
const MAX_RUNS_PER_STATEMENT = 200;

interface Shown {
  runId: string;
  drawn: DrawnMark[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Per database handle: the runs waiting for the statement in flight to return. */
const queues = new WeakMap<SlackDb, { sending: boolean; waiting: Shown[] }>();

/**
 * A run's outcome is in its thread: its kept answer (run_results) and any
 * claim to repair it go, the thread is free for the next run, and the cards
 * drawn on the way are recorded as showing what they show (see DrawnMark).
 * One statement, after the answer (or the failure) was posted. Runs shown
 * while that statement is out share the next one: under load a statement
 * lets go of every run shown since the last, so the statements per run fall
 * instead of queueing for the pool. Resolves once this run is let go.
 */
export async function markRunShown(db: SlackDb, runId: string, drawn: DrawnMark[] = []): Promise<void> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = { sending: false, waiting: [] }));
  const q = queue;
  const shown = new Promise<void>((resolve, reject) => q.waiting.push({ runId, drawn, resolve, reject }));
  if (!q.sending) sendShown(db, q);
  return shown;
}

function sendShown(db: SlackDb, q: { sending: boolean; waiting: Shown[] }): void {
  const batch = q.waiting.splice(0, MAX_RUNS_PER_STATEMENT);
  q.sending = true;
  letGo(db, batch).then(
    () => batch.forEach((s) => s.resolve()),
    (error: unknown) => batch.forEach((s) => s.reject(error)),
  ).finally(() => {
    q.sending = false;
    if (q.waiting.length > 0) sendShown(db, q);
  });
}

async function letGo(db: SlackDb, batch: Shown[]): Promise<void> {
  const one = batch.length === 1;
  const drawn = batch.flatMap((s) => s.drawn);
  const marks = drawnMarks(drawn);
  const runs = one ? 'run' : 'runs';
  const shape: LetGoShape = drawn.length === 0 ? runs : (`${runs}+${drawnCards(marks)}` as const);
  await letGoStatement.execute(db, shape, { runIds: one ? batch[0]!.runId : batch.map((s) => s.runId), ...marks });
}

/** One run (every cycle's, run alone) is named alone, so the statement keeps its plan (oneOrAny). */
type LetGoShape = `${'run' | 'runs'}${'' | '+card' | '+cards'}`;

const letGoStatement = new CachedStatement<{ runIds: string | string[] } & DrawnMarks, LetGoShape>((p, shape) => {
  const ofRuns = oneOrAny('run_id', p.runIds, shape.startsWith('runs'), 'text[]');
  const cards = shape.endsWith('+cards') ? 'cards' : shape.endsWith('+card') ? 'card' : undefined;
  return sql`
    WITH result AS (DELETE FROM run_results WHERE ${ofRuns}),
         repair AS (DELETE FROM slack_result_repairs WHERE ${ofRuns})${cards ? sql`,
         drawn AS (${drawnUpdate(p, cards)})` : sql``}
    DELETE FROM slack_thread_locks WHERE ${ofRuns}
  `;
});
