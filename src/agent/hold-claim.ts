import { renewClaim } from '../db/run-snapshots.js';
import type { RuntimeDeps } from './run-state.js';

/**
 * Renews this process's claim on a run every third of the lease while it is
 * being continued, so nobody takes over a run that is merely slow (a long model
 * call, a long tool). Costs nothing for runs that finish within that time.
 */
export function holdClaim(deps: RuntimeDeps, runId: string): { release(): void } {
  const every = Math.max(10, Math.floor(deps.runLeaseMs / 3));
  const timer = setInterval(() => {
    renewClaim(deps.db, runId).catch((error: unknown) => deps.logger.warn({ err: error, runId }, 'could not renew the claim on a run'));
  }, every);
  // A claim being held must not keep a finished process alive.
  timer.unref();
  return { release: () => clearInterval(timer) };
}
