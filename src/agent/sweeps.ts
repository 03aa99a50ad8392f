import type { RecoveredRun, ExpiredRequest } from './api-types.js';
import type { AgentInternals, RuntimeDeps } from './run-model.js';
import type { PendingAction } from '../db/rows.js';
import { expireDueRequests } from '../db/pending-actions.js';
import { takeStaleRuns } from '../db/run-snapshots.js';
import { startContinuation } from './run-lifecycle.js';
import type { RunSlots } from './run-slots.js';

/** Rows one statement of a sweep takes: small enough that a batch's locks and audit rows stay cheap. */
const SWEEP_BATCH = 100;
/** How long one sweep keeps taking full batches before it returns (the next one follows at once). */
const SWEEP_BUDGET_MS = 5_000;
/** After a sweep that left work behind (a full last batch), the next one starts after this, not the interval. */
const SWEEP_AGAIN_MS = 100;

/** Runs this process took over that have not paused or ended yet, per process (its RunSlots). */
const takenOver = new WeakMap<RunSlots, number>();

/**
 * See Agent.recoverStaleRuns. A run taken over waits for a run slot ahead of the sweep's backlog,
 * its lease renewed meanwhile; so that a process never holds more leases than it can work on soon,
 * it takes no more runs than `maxConcurrentRuns` less those it took over and has not finished.
 */
export async function recoverStaleRuns(root: AgentInternals, deps: RuntimeDeps, limit = SWEEP_BATCH): Promise<RecoveredRun[]> {
  const slots = deps.runSlots;
  const room = Math.min(limit, slots.limit - (takenOver.get(slots) ?? 0));
  if (room <= 0) return [];
  const rows = await takeStaleRuns(deps.db, root.id, deps.runLeaseMs, room);
  takenOver.set(slots, (takenOver.get(slots) ?? 0) + rows.length);
  const ended = () => takenOver.set(slots, takenOver.get(slots)! - 1);
  return rows.map((row) => {
    const { taken_from: takenFrom, ...snapshot } = row;
    // A stranded suspended run was never continued after its decision, so nothing in it can have
    // run yet: it goes on as a continuation would have (grants are still single-use).
    const recoveredFromStop = takenFrom === 'running';
    if (recoveredFromStop) deps.logger.warn({ runId: row.run_id, rootRunId: row.root_run_id }, 'run taken over: its process stopped renewing its lease');
    else deps.logger.warn({ runId: row.run_id, rootRunId: row.root_run_id }, 'run continued: its last decision was recorded, but the process that recorded it stopped before continuing it');
    const leased = recoveredFromStop ? { snapshot, recovered: true as const } : { snapshot };
    // The continuation reads the run's calls itself, off the sweep's path.
    const stream = startContinuation(root, deps, row.run_id, row.root_run_id, leased);
    void stream.result.then(ended, ended);
    return { runId: row.run_id, rootRunId: row.root_run_id, stream };
  });
}

export interface SweepExpiredOptions {
  /**
   * Each continuation waits for this before it waits for a run slot: a front end that shows the
   * backlog at the pace it can (Slack's rate limits) starts each run when it is ready to show it.
   */
  startAfter?: (action: PendingAction) => PromiseLike<unknown>;
}

/**
 * Marks approval requests past their time as `expired` (never as declined) and
 * lets their runs continue with a denied result that says so. The continuations
 * queue behind the decisions for a run slot (RunSlots).
 */
export async function sweepExpired(root: AgentInternals, deps: RuntimeDeps, limit = SWEEP_BATCH, options: SweepExpiredOptions = {}): Promise<ExpiredRequest[]> {
  const expired = await expireDueRequests(deps.db, root.id, limit);
  const continued = new Set<string>();
  return expired.map((action) => {
    if (continued.has(action.run_id)) return { action };
    continued.add(action.run_id);
    const startAfter = options.startAfter?.(action);
    return { action, stream: startContinuation(root, deps, action.run_id, action.root_run_id, undefined, startAfter, undefined, 'sweep') };
  });
}

/**
 * Takes batches of `size` from `take` while they come back full, until `budgetMs` has passed, so
 * a backlog drains in one sweep and not one batch per interval, and no sweep runs away. `more`:
 * the last batch was full, so more may be waiting (the caller sweeps again soon).
 */
export async function takeWhileFull<T>(
  take: (limit: number) => Promise<T[]>,
  each: (items: T[]) => void,
  options: { size?: number; budgetMs?: number } = {},
): Promise<{ taken: number; more: boolean }> {
  const size = options.size ?? SWEEP_BATCH;
  const until = performance.now() + (options.budgetMs ?? SWEEP_BUDGET_MS);
  let taken = 0;
  for (;;) {
    const batch = await take(size);
    taken += batch.length;
    if (batch.length > 0) each(batch);
    if (batch.length < size) return { taken, more: false };
    if (performance.now() >= until) return { taken, more: true };
  }
}

/** Per process (its RunSlots): the last batch of runs taken over came back full, so more may be waiting. */
const staleLeft = new WeakMap<RunSlots, boolean>();

/**
 * takeWhileFull for runs to take over (recoverStaleRuns), which a process takes only as it has room
 * for them: `more` also when it ran out of room while runs were likely left, so the caller sweeps
 * again soon, when room may have freed, rather than after its interval.
 */
export async function takeOverWhileFull(
  agent: { runtime: RuntimeDeps; recoverStaleRuns(limit?: number): Promise<RecoveredRun[]> },
  each: (runs: RecoveredRun[]) => void,
  options: { size?: number; budgetMs?: number } = {},
): Promise<{ taken: number; more: boolean }> {
  const slots = agent.runtime.runSlots;
  const size = options.size ?? SWEEP_BATCH;
  const until = performance.now() + (options.budgetMs ?? SWEEP_BUDGET_MS);
  let taken = 0;
  for (;;) {
    const room = Math.min(size, slots.limit - (takenOver.get(slots) ?? 0));
    if (room <= 0) return { taken, more: staleLeft.get(slots) ?? false };
    const batch = await agent.recoverStaleRuns(room);
    taken += batch.length;
    if (batch.length > 0) each(batch);
    staleLeft.set(slots, batch.length === room);
    if (batch.length < room) return { taken, more: false };
    if (performance.now() >= until) return { taken, more: true };
  }
}

/**
 * Runs `sweep` every `intervalMs` until stopped, and again after `againMs` when it says it left
 * work behind; errors are logged (onError), never fatal. One sweep at a time.
 */
export function startSweeping(
  sweep: () => Promise<{ more: boolean }>,
  options: { intervalMs: number; againMs?: number; onError?: (error: unknown) => void },
): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    let more = false;
    try {
      more = (await sweep()).more;
    } catch (error) {
      options.onError?.(error);
    }
    if (!stopped) timer = setTimeout(tick, more ? (options.againMs ?? SWEEP_AGAIN_MS) : options.intervalMs);
  };
  timer = setTimeout(tick, options.intervalMs);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/**
 * Expires due requests every `intervalMs` until stopped, in batches while they come back full
 * (see takeWhileFull); errors are logged, never fatal.
 */
export function startExpirySweeper(
  agents: Array<{ sweepExpired(limit?: number): Promise<ExpiredRequest[]> }>,
  options: { intervalMs: number; budgetMs?: number; onExpired?: (expired: ExpiredRequest) => void; onError?: (error: unknown) => void },
): { stop(): void } {
  return startSweeping(
    async () => {
      let more = false;
      for (const agent of agents) {
        try {
          const swept = await takeWhileFull(
            (limit) => agent.sweepExpired(limit),
            (batch) => batch.forEach((expired) => options.onExpired?.(expired)),
            options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {},
          );
          more ||= swept.more;
        } catch (error) {
          options.onError?.(error);
        }
      }
      return { more };
    },
    options,
  );
}
