import type { RunLease, RuntimeDeps, RunState } from './run-model.js';
import { toSnapshot, snapshotWrite } from './run-state.js';
import { appendAudit } from '../db/audit.js';
import { renewRunLease, type Renewal, recordRunningRun } from '../db/run-snapshots.js';
import { LeaseLostError } from './errors.js';
import { heldLeases } from './held-leases.js';

/** Before each model call, execute and write of a continued run: stops here once the run was taken over. */
export function checkLease(run: RunState): Promise<void> | undefined {
  return run.lease?.check();
}

/**
 * Before a continued run runs a tool nobody approved (or hands a call to a
 * sub-agent), its step is written down under the lease, once per step. A
 * process that takes the run over after a crash then restores the step with
 * the call already made, and reports the call interrupted instead of asking
 * the model again, which could run the tool a second time. Approved calls and
 * answered suspensions need no such record: their spent grant or answered row
 * already says they may have run. A top-level run that was never suspended is
 * put on record here first (recordFreshRun), with this step; sub-agent runs are
 * covered by their parent's record of the delegating call. The audit events
 * the run owes (the call's `started` among them) are written before this
 * resolves, with the record when there is one to write.
 */
export async function checkpointStep(run: RunState): Promise<void> {
  if (!run.lease && !run.parentRunId) await recordFreshRun(run);
  if (run.lease?.runId === run.runId && run.checkpointedStep !== run.step) {
    await run.lease.checkpoint(toSnapshot(run), run.audit.splice(0));
    run.checkpointedStep = run.step;
  }
  // What is still owed (the step was written already, or the run is a sub-agent's under its
  // parent's record): on its own, since the call must not start before its event is stored.
  if (run.audit.length > 0) await appendAudit(run.deps.db, run.audit.splice(0));
}

/**
 * Renews this process's lease on a run every third of the lease while it is
 * being continued, so nobody takes over a run that is merely slow (a long model
 * call, a long tool). Costs nothing for runs that finish within that time.
 *
 * Renewing only works while the lease's epoch is still ours. If the process
 * stalled past the lease (a frozen VM, a stopped process) and the run was taken
 * over meanwhile, the next renewal or check finds out and the run stops here:
 * otherwise both processes would call the model, run unguarded tools and post
 * answers for the same run.
 */
export function holdLease(deps: RuntimeDeps, runId: string, epoch: number): RunLease {
  const every = Math.max(10, Math.floor(deps.runLeaseMs / 3));
  // When the last renewal that succeeded was sent: nobody can take over before it plus the lease.
  let heldSince = performance.now();
  let lost = false;

  const noteRenewal = (renewal: Renewal, sent: number) => {
    if (renewal === 'held') {
      heldSince = Math.max(heldSince, sent);
      return;
    }
    if (lost) return;
    lost = true;
    clearInterval(timer);
    // A renewal sent just before the run's own final write (its end or its next pause) finds the
    // row moved on: no takeover, nothing to warn about. If another process did end the run, the
    // next check says so.
    if (renewal === 'taken') deps.logger.warn({ runId, leaseEpoch: epoch }, 'lease on the run lost: another process took it over; this process stops continuing it');
  };
  const renew = async (): Promise<void> => {
    const sent = performance.now();
    noteRenewal(await renewRunLease(deps.db, runId, epoch), sent);
  };
  const timer = setInterval(() => {
    renew().catch((error: unknown) => deps.logger.warn({ err: error, runId }, 'could not renew the lease on a run'));
  }, every);
  // A lease being held must not keep a finished process alive.
  timer.unref();
  const held = {
    db: deps.db,
    runId,
    epoch,
    surrender: () => {
      lost = true;
      clearInterval(timer);
    },
  };
  heldLeases.add(held);

  return {
    runId,
    epoch,
    check() {
      if (lost) return Promise.reject(new LeaseLostError(runId));
      // Well inside the lease since the last renewal: nobody can have taken the run.
      if (performance.now() - heldSince < deps.runLeaseMs / 2) return undefined;
      return renew().then(() => {
        if (lost) throw new LeaseLostError(runId);
      });
    },
    async checkpoint(snapshot, audit) {
      if (lost) throw new LeaseLostError(runId);
      const sent = performance.now();
      noteRenewal(await renewRunLease(deps.db, runId, epoch, snapshot, audit), sent);
      if (lost) throw new LeaseLostError(runId);
    },
    release: () => {
      clearInterval(timer);
      heldLeases.delete(held);
    },
  };
}

/**
 * Puts a top-level run that has never paused on record: its row, `running`
 * under a lease this process renews from then on. If the process stops, an
 * instance's sweep takes the run over (recoverStaleRuns) instead of the request
 * being lost. Once per run. Resolves when written, or when writing failed: the
 * run then goes on unrecorded, as every run did before, and the log says so.
 *
 * The snapshot is taken when this is called, whatever the run is doing: a call
 * of the current step without a result yet is reported interrupted by a
 * takeover, which is what it is.
 */
function recordFreshRun(run: RunState): Promise<void> {
  if (run.lease || run.parentRunId || run.hadSnapshot) return run.recording ?? Promise.resolve();
  run.recording ??= write(run);
  return run.recording;
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
    run.lease = holdLease(run.deps, run.runId, epoch);
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
export function recordFreshRunIfSlow(run: RunState): () => void {
  const ms = run.deps.recordRunAfterMs;
  if (!Number.isFinite(ms)) return () => {};
  const timer = setTimeout(() => void recordFreshRun(run), Math.max(0, ms));
  // The run itself keeps the process busy; the clock must not.
  timer.unref();
  return () => clearTimeout(timer);
}
