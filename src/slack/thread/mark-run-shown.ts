import { sql } from 'kysely';
import { drawnMarks, drawnUpdate, type DrawnMarks } from '../card/show-card-update.js';
import type { DrawnMark } from '../context.js';
import type { SlackDb } from '../tables.js';
import { CachedStatement } from '../../db/cached-statement.js';

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
  const runIds = batch.map((s) => s.runId);
  const drawn = batch.flatMap((s) => s.drawn);
  await letGoStatement.execute(db, drawn.length ? 'drawn' : '', { runIds, ...drawnMarks(drawn) });
}

const letGoStatement = new CachedStatement<{ runIds: string[] } & DrawnMarks, '' | 'drawn'>(
  (p, shape) => sql`
    WITH result AS (DELETE FROM run_results WHERE run_id = ANY(${p.runIds}::text[])),
         repair AS (DELETE FROM slack_result_repairs WHERE run_id = ANY(${p.runIds}::text[]))${shape === 'drawn' ? sql`,
         drawn AS (${drawnUpdate(p)})` : sql``}
    DELETE FROM slack_thread_locks WHERE run_id = ANY(${p.runIds}::text[])
  `,
);
