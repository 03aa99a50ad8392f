import { recordRunningRun } from '../db/run-snapshots.js';
import { holdClaim } from './hold-claim.js';
import { snapshotWrite } from './plan.js';
import type { RunState } from './run-state.js';

/**
 * Puts a top-level run that has never paused on record: its row, `running`
 * under a claim this process renews from then on. If the process stops, an
 * instance's sweep takes the run over (recoverStaleRuns) instead of the request
 * being lost. Once per run. Resolves when written, or when writing failed: the
 * run then goes on unrecorded, as every run did before, and the log says so.
 *
 * The snapshot is taken when this is called, whatever the run is doing: a call
 * of the current step without a result yet is reported interrupted by a
 * takeover, which is what it is.
 */
export function putOnRecord(run: RunState): Promise<void> {
  if (run.claim || run.parentRunId || run.hadSnapshot) return run.onRecord ?? Promise.resolve();
  run.onRecord ??= write(run);
  return run.onRecord;
}

async function write(run: RunState): Promise<void> {
  const step = run.step;
  // The events the run owes go with its record (a call about to start is among them).
  const audit = run.audit.splice(0);
  try {
    // The snapshot is serialised before the first await, so it is the run as it stands now.
    const epoch = await recordRunningRun(run.deps.db, snapshotWrite(run), audit);
    if (epoch === undefined) {
      run.audit.unshift(...audit);
      run.log.warn('run id already on record; the run goes on unrecorded');
      return;
    }
    run.hadSnapshot = true;
    run.claim = holdClaim(run.deps, run.runId, epoch);
    run.checkpointedStep = step;
  } catch (error) {
    // Still owed: whoever writes next (or checkpointStep, before a call runs) writes them.
    run.audit.unshift(...audit);
    run.log.warn({ err: error }, 'could not put the run on record; it goes on, but would be lost if this process stopped');
  }
}

/**
 * Starts the clock on a fresh run: if it has neither paused nor finished after
 * `recordRunAfterMs`, it is put on record. Quick runs (most that end in an
 * approval card) write nothing extra; a run that waits on a slow model does.
 * Returns the function that stops the clock.
 */
export function putOnRecordIfSlow(run: RunState): () => void {
  const ms = run.deps.recordRunAfterMs;
  if (!Number.isFinite(ms)) return () => {};
  const timer = setTimeout(() => void putOnRecord(run), Math.max(0, ms));
  // The run itself keeps the process busy; the clock must not.
  timer.unref();
  return () => clearTimeout(timer);
}
