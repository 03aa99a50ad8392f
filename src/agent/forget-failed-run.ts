import { dropFailedRun } from '../db/run-snapshots.js';
import { ClaimLostError } from './errors.js';
import type { RunState } from './run-state.js';

/**
 * After a top-level run failed in this process, with its failure reported:
 * its record goes, so that no sweep takes it over only to fail again (a model
 * that keeps failing would otherwise be retried, and the failure posted, every
 * lease). Only while this process holds the claim; a run another process took
 * over is that process's. A failed sub-agent is its parent's to hear about
 * (see continueRun), not this.
 */
export async function forgetFailedRun(run: RunState, error: unknown): Promise<void> {
  if (error instanceof ClaimLostError || run.parentRunId) return;
  // A record still being written would otherwise land after this and outlive the run.
  await run.onRecord;
  const claim = run.claim;
  if (!claim || claim.runId !== run.runId) return;
  await dropFailedRun(run.deps.db, run.runId, claim.epoch).catch((dropError: unknown) =>
    run.log.warn({ err: dropError }, 'could not remove the record of the failed run; a sweep will take it over'),
  );
}
