import type { Db } from '../db/database.js';
import { handOverRunLease } from '../db/run-snapshots.js';

interface HeldLease {
  db: Db;
  runId: string;
  epoch: number;
  /** Stops renewing and makes the run's next check fail with LeaseLostError. */
  surrender(): void;
}

/** The leases this process holds right now (holdLease adds each, its release removes it). */
export const heldLeases = new Set<HeldLease>();

/**
 * For a shutdown that ran out of time: gives up every lease this process still holds, so other
 * instances take those runs over at their next sweep instead of after the lease. Each run stops
 * renewing first, so the lease cannot be renewed again behind the hand-over. Returns the run ids
 * handed over.
 */
export async function handOverHeldLeases(): Promise<string[]> {
  const leases = [...heldLeases];
  for (const lease of leases) lease.surrender();
  const handed = await Promise.all(
    leases.map((l) => handOverRunLease(l.db, l.runId, l.epoch).then((ok) => (ok ? l.runId : undefined), () => undefined)),
  );
  return handed.filter((id): id is string => id !== undefined);
}
