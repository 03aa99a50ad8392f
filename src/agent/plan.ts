import type { PendingWrite, SnapshotWrite } from '../db/persist-suspension.js';
import type { ApprovalRequest, SuspensionRequest } from './chunks.js';
import { toSnapshot, type RunState } from './run-state.js';

/** A call that will wait, and the chunk to announce it once it has an id. */
export interface PlannedAction {
  write: PendingWrite;
  announce?:
    | { kind: 'approval'; payload: Omit<ApprovalRequest, 'actionId' | 'expiresAt'> }
    | { kind: 'suspension'; payload: Omit<SuspensionRequest, 'actionId'> };
}

/** Everything a paused agent tree must write before anyone may act on it. */
export interface SuspensionPlan {
  snapshots: SnapshotWrite[];
  actions: PlannedAction[];
}

export type RunOutcome =
  | { kind: 'finished'; text: string; finishReason: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other' }
  | { kind: 'suspended'; plan: SuspensionPlan };

export function snapshotWrite(run: RunState): SnapshotWrite {
  return {
    run_id: run.runId,
    root_run_id: run.rootRunId,
    parent_run_id: run.parentRunId,
    agent_id: run.agent.id,
    thread_id: run.threadId,
    resource_id: run.resourceId,
    snapshot: toSnapshot(run),
  };
}
