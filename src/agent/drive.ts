import { endRun, claimRun, failDelegation, type SnapshotRow } from '../db/run-snapshots.js';
import { errorMessage } from '../error-message.js';
import { persistSuspension } from '../db/persist-suspension.js';
import { pendingActionsOfRoot } from '../approvals/pending-actions.js';
import type { AgentInternals } from './agent-internals.js';
import type { StreamSink } from './agent-stream.js';
import type { SuspendPayload } from './chunks.js';
import { sinkEmitter, subAgentEmitter, type Emitter } from './emitter.js';
import { loadThreadHistory } from './memory.js';
import type { RunOutcome } from './plan.js';
import { resumeClaimed } from './resume-run.js';
import { holdClaim } from './hold-claim.js';
import { stillHeld, type RunState, type RuntimeDeps, type Snapshot } from './run-state.js';
import { ClaimLostError, SnapshotNotFoundError } from './errors.js';
import type { Claimed } from '../approvals/record-decision.js';
import { appendAudit } from '../approvals/audit.js';
import { rememberAnnounced } from './announced-action.js';
import { forgetFailedRun } from './forget-failed-run.js';
import { approvalRulesFor } from './requires-approval.js';

export function emitterFor(run: RunState, sink: StreamSink): Emitter {
  return run.parentRunId ? subAgentEmitter(sink) : sinkEmitter(sink);
}

/**
 * Writes down where a run ended up and tells the stream. A finished sub-agent
 * hands its answer to its parent and, when that was the last thing the parent
 * waited for, the parent continues on the same stream.
 */
export async function settleOutcome(
  root: AgentInternals,
  run: RunState,
  outcome: RunOutcome,
  sink: StreamSink,
): Promise<void> {
  const { db } = run.deps;
  // A fresh run still being put on record: what follows must land after it (see putOnRecord).
  await run.onRecord;
  await stillHeld(run);
  if (outcome.kind === 'suspended') {
    const persisted = await persistSuspension(db, outcome.plan.snapshots, outcome.plan.actions.map((a) => a.write), run.audit.splice(0));
    run.hadSnapshot = true;
    const ids = new Map(persisted.map((p) => [`${p.run_id}\u0000${p.tool_call_id}`, p]));
    for (const action of outcome.plan.actions) {
      if (!action.announce) continue;
      const row = ids.get(`${action.write.run_id}\u0000${action.write.tool_call_id}`)!;
      if (action.announce.kind === 'approval') {
        const payload = { ...action.announce.payload, actionId: row.id, expiresAt: new Date(row.expires_at!).toISOString() };
        rememberAnnounced(payload, row);
        sink.push({ type: 'tool-call-approval', runId: sink.runId, payload });
      } else {
        const payload = { ...action.announce.payload, actionId: row.id };
        rememberAnnounced(payload, row);
        sink.push({ type: 'tool-call-suspended', runId: sink.runId, payload });
      }
    }
    sink.finish('suspended');
    return;
  }

  const parent =
    run.parentRunId && run.parentToolCallId
      ? { runId: run.parentRunId, toolCallId: run.parentToolCallId, result: { text: outcome.text } }
      : undefined;
  await endRun(db, {
    runId: run.runId,
    hadSnapshot: run.hadSnapshot,
    audit: run.audit.splice(0),
    ...(parent ? { parent } : {}),
    // A run on record has its answer kept in the same statement, for a front end that must show it even if
    // this process stops first (see keepResults).
    ...(!parent && run.hadSnapshot && run.deps.keepResults
      ? { result: { agentId: run.agent.id, threadId: run.threadId, resourceId: run.resourceId, text: outcome.text, finishReason: outcome.finishReason } }
      : {}),
    ...(run.options.memory && run.threadId && run.resourceId && !run.parentRunId
      ? { memory: { threadId: run.threadId, resourceId: run.resourceId, messages: run.messages } }
      : {}),
  });
  if (!parent) {
    sink.finish(outcome.finishReason);
    return;
  }
  await continueRun(root, parent.runId, run.deps, sink);
}

/** Claims a run whose last wait just ended and continues it; otherwise reports what it still waits on. */
export async function continueRun(
  root: AgentInternals,
  runId: string,
  deps: RuntimeDeps,
  sink: StreamSink,
  claimed?: Claimed,
): Promise<void> {
  const row = claimed?.snapshot ?? (await claimRun(deps.db, runId));
  if (!row) {
    const rootRunId = sink.runId;
    const waiting = await pendingActionsOfRoot(deps.db, rootRunId);
    sink.finishWaiting(
      waiting.map(
        (w): SuspendPayload => ({
          kind: w.kind === 'approval' ? 'approval' : 'suspension',
          toolCallId: w.tool_call_id,
          toolName: w.tool_name,
          args: w.args,
          path: w.path ?? [],
          runId: w.run_id,
          ...(w.kind === 'suspension' ? { suspendPayload: w.suspend_payload } : {}),
        }),
      ),
    );
    return;
  }
  const claim = holdClaim(deps, row.run_id, row.claim_epoch);
  const run = await restoreRun(root, row, deps).catch((error: unknown) => {
    claim.release();
    throw error;
  });
  run.claim = claim;
  let failedSubAgent = false;
  try {
    let outcome: RunOutcome;
    try {
      outcome = await resumeClaimed(run, emitterFor(run, sink), claimed);
    } catch (error) {
      // What already ran must be on record even when the rest of the run fails.
      await appendAudit(deps.db, run.audit.splice(0));
      throw error;
    }
    await settleOutcome(root, run, outcome, sink);
  } catch (error) {
    failedSubAgent = await handToCaller(run, error);
    if (!failedSubAgent) {
      await forgetFailedRun(run, error);
      throw error;
    }
  } finally {
    claim.release();
  }
  // As after a tool that failed, the caller is told and carries on (its own failure is its own).
  if (failedSubAgent) await continueRun(root, run.parentRunId!, deps, sink);
}

/**
 * A sub-agent run that failed (not one taken over): its record goes and its
 * parent's delegation is closed as failed, with the error as the reason the
 * parent's model is given. True when that was done; false leaves the failure
 * to the caller as before.
 */
async function handToCaller(run: RunState, error: unknown): Promise<boolean> {
  if (error instanceof ClaimLostError || !run.parentRunId || !run.parentToolCallId || !run.claim) return false;
  const closed = await failDelegation(run.deps.db, {
    runId: run.runId,
    epoch: run.claim.epoch,
    parentRunId: run.parentRunId,
    parentToolCallId: run.parentToolCallId,
    reason: errorMessage(error),
  }).catch((writeError: unknown) => {
    run.log.warn({ err: writeError }, 'could not hand the failure of a sub-agent to its caller');
    return false;
  });
  if (closed) run.log.error({ err: error }, 'sub-agent failed; its caller is told');
  return closed;
}

export function findAgent(root: AgentInternals, path: string[]): AgentInternals | undefined {
  return agentsAlong(root, path)?.at(-1);
}

/** The agents a delegation path names, from `root` down; undefined when the code no longer has one of them. */
export function agentsAlong(root: AgentInternals, path: string[]): AgentInternals[] | undefined {
  if (path[0] !== root.id) return undefined;
  const lineage = [root];
  for (const id of path.slice(1)) {
    const next = Object.values(lineage.at(-1)!.subAgents).find((a) => a.id === id);
    if (!next) return undefined;
    lineage.push(next);
  }
  return lineage;
}

export async function restoreRun(root: AgentInternals, row: SnapshotRow, deps: RuntimeDeps): Promise<RunState> {
  const snapshot = row.snapshot as Snapshot;
  const lineage = agentsAlong(root, snapshot.path);
  const agent = lineage?.at(-1);
  if (!lineage || !agent) throw new SnapshotNotFoundError(row.run_id);
  const history =
    snapshot.history && row.thread_id && row.resource_id
      ? await loadThreadHistory(deps.db, row.thread_id, row.resource_id, snapshot.history.count, snapshot.history.upTo)
      : { messages: [], upTo: null };
  return {
    runId: row.run_id,
    rootRunId: row.root_run_id,
    parentRunId: row.parent_run_id,
    parentToolCallId: snapshot.parentToolCallId ?? null,
    agent,
    path: snapshot.path,
    threadId: row.thread_id,
    resourceId: row.resource_id,
    history: history.messages,
    historyUpTo: history.upTo,
    messages: snapshot.messages,
    results: snapshot.results,
    step: snapshot.step,
    options: snapshot.options,
    approvalRules: approvalRulesFor(lineage, snapshot.options.requireToolApproval),
    requestContext: new Map(Object.entries(snapshot.options.requestContext ?? {})),
    hadSnapshot: true,
    audit: [],
    deps,
    log: deps.logger.child({ runId: row.run_id, rootRunId: row.root_run_id }),
  };
}
