import { sql } from 'kysely';
import { drawnCards, drawnMarks, drawnUpdate, type DrawnMarks } from '../card/show-card-update.js';
import type { DrawnMark } from '../context.js';
import type { SlackDb } from '../tables.js';
import { CachedStatement, oneOrAny } from '../../db/cached-statement.js';

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
