import { renewClaim, type Renewal } from '../db/run-snapshots.js';
import { ClaimLostError } from './errors.js';
import type { RuntimeDeps, Snapshot } from './run-state.js';
import type { AuditInput } from '../approvals/audit.js';

/** A claim this process holds on a run while it continues it. */
export interface ClaimHold {
  /** The run the claim is on (sub-agent runs started under it share it). */
  readonly runId: string;
  /** Which claim on the run this is (run_snapshots.claim_epoch). */
  readonly epoch: number;
  /**
   * Resolves (or returns undefined at once) while the claim is still this
   * process's; rejects with ClaimLostError once another process took the run
   * over. Called before each model call, each execute and the run's next write.
   */
  check(): Promise<void> | undefined;
  /**
   * Stores `snapshot` as where the run stands, with `audit`, renewing the
   * claim; rejects with ClaimLostError (having written nothing) once it is not ours.
   */
  checkpoint(snapshot: Snapshot, audit?: AuditInput[]): Promise<void>;
  release(): void;
}

/**
 * Renews this process's claim on a run every third of the lease while it is
 * being continued, so nobody takes over a run that is merely slow (a long model
 * call, a long tool). Costs nothing for runs that finish within that time.
 *
 * Renewing only works while the claim's epoch is still ours. If the process
 * stalled past the lease (a frozen VM, a stopped process) and the run was taken
 * over meanwhile, the next renewal or check finds out and the run stops here:
 * otherwise both processes would call the model, run unguarded tools and post
 * answers for the same run.
 */
export function holdClaim(deps: RuntimeDeps, runId: string, epoch: number): ClaimHold {
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
    if (renewal === 'taken') deps.logger.warn({ runId, claimEpoch: epoch }, 'claim on the run lost: another process took it over; this process stops continuing it');
  };
  const renew = async (): Promise<void> => {
    const sent = performance.now();
    noteRenewal(await renewClaim(deps.db, runId, epoch), sent);
  };
  const timer = setInterval(() => {
    renew().catch((error: unknown) => deps.logger.warn({ err: error, runId }, 'could not renew the claim on a run'));
  }, every);
  // A claim being held must not keep a finished process alive.
  timer.unref();

  return {
    runId,
    epoch,
    check() {
      if (lost) return Promise.reject(new ClaimLostError(runId));
      // Well inside the lease since the last renewal: nobody can have taken the run.
      if (performance.now() - heldSince < deps.runLeaseMs / 2) return undefined;
      return renew().then(() => {
        if (lost) throw new ClaimLostError(runId);
      });
    },
    async checkpoint(snapshot, audit) {
      if (lost) throw new ClaimLostError(runId);
      const sent = performance.now();
      noteRenewal(await renewClaim(deps.db, runId, epoch, snapshot, audit), sent);
      if (lost) throw new ClaimLostError(runId);
    },
    release: () => clearInterval(timer),
  };
}
