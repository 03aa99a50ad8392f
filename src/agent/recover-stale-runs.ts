import { takeStaleRuns } from '../db/run-snapshots.js';
import type { AgentInternals } from './agent-internals.js';
import type { AgentStream } from './agent-stream.js';
import { startContinuation } from './decide.js';
import type { RuntimeDeps } from './run-state.js';

export interface RecoveredRun {
  /** The run taken over (a sub-agent's run, or the top-level one). */
  runId: string;
  rootRunId: string;
  /** Its continuation, from where its snapshot left it. */
  stream: AgentStream;
}

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
