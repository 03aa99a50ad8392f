import type { RecoveredRun, ExpiredRequest, AgentInternals, RuntimeDeps } from './types.js';
import { expireDueRequests } from '../db/pending-actions.js';
import { takeStaleRuns } from '../db/run-snapshots.js';
import { startContinuation } from './run-lifecycle.js';

/** See Agent.recoverStaleRuns. */
export async function recoverStaleRuns(root: AgentInternals, deps: RuntimeDeps, limit = 100): Promise<RecoveredRun[]> {
  const rows = await takeStaleRuns(deps.db, root.id, deps.runLeaseMs, limit);
  const recovered: RecoveredRun[] = [];
  for (const row of rows) {
    const { taken_from: takenFrom, ...snapshot } = row;
    // A stranded suspended run was never continued after its decision, so nothing in it can have
    // run yet: it goes on as a continuation would have (grants are still single-use).
    const recoveredFromStop = takenFrom === 'running';
    if (recoveredFromStop) deps.logger.warn({ runId: row.run_id, rootRunId: row.root_run_id }, 'run taken over: its process stopped renewing its claim');
    else deps.logger.warn({ runId: row.run_id, rootRunId: row.root_run_id }, 'run continued: its last decision was recorded, but the process that recorded it stopped before continuing it');
    recovered.push({
      runId: row.run_id,
      rootRunId: row.root_run_id,
      // The continuation reads the run's calls itself, off the sweep's path.
      stream: startContinuation(root, deps, row.run_id, row.root_run_id, recoveredFromStop ? { snapshot, recovered: true } : { snapshot }),
    });
  }
  return recovered;
}

/**
 * Marks approval requests past their time as `expired` (never as declined) and
 * lets their runs continue with a denied result that says so.
 */
export async function sweepExpired(root: AgentInternals, deps: RuntimeDeps, limit = 100): Promise<ExpiredRequest[]> {
  const expired = await expireDueRequests(deps.db, root.id, limit);
  const continued = new Set<string>();
  return expired.map((action) => {
    if (continued.has(action.run_id)) return { action };
    continued.add(action.run_id);
    return { action, stream: startContinuation(root, deps, action.run_id, action.root_run_id) };
  });
}

/** Runs the sweep every `intervalMs` until stopped; errors are logged, never fatal. */
export function startExpirySweeper(
  agents: Array<{ sweepExpired(limit?: number): Promise<ExpiredRequest[]> }>,
  options: { intervalMs: number; onExpired?: (expired: ExpiredRequest) => void; onError?: (error: unknown) => void },
): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    for (const agent of agents) {
      try {
        for (const expired of await agent.sweepExpired()) options.onExpired?.(expired);
      } catch (error) {
        options.onError?.(error);
      }
    }
    if (!stopped) timer = setTimeout(tick, options.intervalMs);
  };
  timer = setTimeout(tick, options.intervalMs);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
