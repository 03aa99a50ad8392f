import { agentsAlong } from './run-state.js';
import { childLogger } from './child-logger.js';
import { endRun, type RunEnd, takeRunLease, failDelegation, persistSuspension, dropFailedRun, findSnapshot } from '../db/run-snapshots.js';
import type { PendingAction, SnapshotRow } from '../db/rows.js';
import { errorMessage } from '../error-message.js';
import { cancelPendingRuns, pendingActionsOfRoot, type LeasedRun } from '../db/pending-actions.js';
import type { ApprovalRequest, SuspensionRequest, AgentStream, StreamOptions } from './api-types.js';
import type { AgentInternals, RunOutcome, RunState, RuntimeDeps, Snapshot, LiveOptions, RunLease } from './run-model.js';
import { sinkEmitter, subAgentEmitter, type Emitter, rememberStoredAction, StreamSink, type AnnouncedRequest, announcementChunk, pendingOfAnnounced, rememberPause } from './stream.js';
import { announcedNow, waitingCalls } from './waiting-calls.js';
import { loadThreadHistory } from '../db/thread-messages.js';
import { resumeLeased } from './resume.js';
import { holdLease, checkLease, recordFreshRunIfSlow } from './run-lease.js';
import type { ReleaseSlot, RunPriority } from './run-slots.js';
import { LeaseLostError, RunAbortedError, SnapshotNotFoundError, hasAgentErrorCode } from './errors.js';
import { mergeCallSettings, storableSettings } from './model-settings.js';
import { runTelemetry } from './telemetry.js';
import { appendAudit } from '../db/audit.js';
import { approvalRulesFor } from './approval-gate.js';
import { randomUUID } from 'node:crypto';
import type { LanguageModelV3Message } from '@ai-sdk/provider';
import { runSteps } from './step-loop.js';
import { priorOf, priorOfSnapshot } from './prior-run.js';

function emitterFor(run: RunState, sink: StreamSink): Emitter {
  return run.parentRunId ? subAgentEmitter(sink) : sinkEmitter(sink);
}

/**
 * Writes down where a run ended up and tells the stream. A finished sub-agent
 * hands its answer to its parent and, when that was the last thing the parent
 * waited for, the parent continues on the same stream.
 */
async function settleOutcome(
  root: AgentInternals,
  run: RunState,
  outcome: RunOutcome,
  sink: StreamSink,
): Promise<void> {
  const { db } = run.deps;
  // A fresh run still being put on record: what follows must land after it (see recordFreshRun).
  await run.recording;
  await checkLease(run);
  if (outcome.kind === 'suspended') {
    // Aborted while the step's calls ran: the run is cancelled rather than left waiting on anyone.
    const abortSignal = run.live?.abortSignal;
    if (abortSignal?.aborted) throw new RunAbortedError(run.runId, abortSignal.reason);
    const persisted = await persistSuspension(db, outcome.plan.snapshots, outcome.plan.actions.map((a) => a.write), run.audit.splice(0));
    run.hadSnapshot = true;
    // A sub-agent continued on its own pauses again: the stream reports the top-level run so far, as Mastra's.
    if (run.parentRunId && !sink.isSeeded) {
      const top = await findSnapshot(db, run.rootRunId);
      if (top) sink.seed(priorOfSnapshot(top));
    }
    const announced: AnnouncedRequest[] = [];
    for (const action of outcome.plan.actions) {
      if (!action.announce) continue;
      const row = storedRow(persisted, action.write);
      // The planned payload becomes the announced one: it was made for this announcement alone.
      let request: AnnouncedRequest;
      if (action.announce.kind === 'approval') {
        const payload = action.announce.payload as ApprovalRequest;
        payload.actionId = row.id;
        payload.expiresAt = new Date(row.expires_at!).toISOString();
        request = { kind: 'approval', payload };
      } else {
        const payload = action.announce.payload as SuspensionRequest;
        payload.actionId = row.id;
        request = { kind: 'suspension', payload };
      }
      rememberStoredAction(request.payload, row);
      announced.push(request);
    }
    // One paused call per stream, as Mastra announces them; the others follow, one per continuation.
    const now = announcedNow(announced);
    if (now[0]) {
      rememberPause(now[0].payload, announced);
      for (const request of now) sink.push(announcementChunk(sink.runId, request));
      sink.alsoPending(announced.filter((a) => !now.includes(a)).map(pendingOfAnnounced));
    }
    sink.finish('suspended');
    return;
  }

  const parent =
    run.parentRunId && run.parentToolCallId
      ? { runId: run.parentRunId, toolCallId: run.parentToolCallId, result: { text: outcome.text } }
      : undefined;
  const end: RunEnd = { runId: run.runId, hadSnapshot: run.hadSnapshot, audit: run.audit.splice(0) };
  if (parent) end.parent = parent;
  // A run on record has its answer kept in the same statement, for a front end that must show it even if
  // this process stops first (see keepResults).
  else if (run.hadSnapshot && run.deps.keepResults) {
    end.result = { agentId: run.agent.id, threadId: run.threadId, resourceId: run.resourceId, text: outcome.answer, finishReason: outcome.finishReason };
  }
  if (run.options.memory && run.threadId && run.resourceId && !run.parentRunId) {
    end.memory = { threadId: run.threadId, resourceId: run.resourceId, messages: run.messages };
  }
  await endRun(db, end);
  if (!parent) {
    sink.finish(outcome.finishReason);
    return;
  }
  await continueRun(root, parent.runId, run.deps, sink, undefined, run.live);
}

/** The row `persisted` holds for a planned call (a pause stores a handful of calls at most). */
function storedRow(persisted: PendingAction[], write: { run_id: string; tool_call_id: string }): PendingAction {
  for (const row of persisted) if (row.run_id === write.run_id && row.tool_call_id === write.tool_call_id) return row;
  throw new Error(`run ${write.run_id}: call ${write.tool_call_id} was not stored with its pause`);
}

/** Leases a run whose last wait just ended and continues it; otherwise reports what it still waits on. */
async function continueRun(
  root: AgentInternals,
  runId: string,
  deps: RuntimeDeps,
  sink: StreamSink,
  leased?: LeasedRun,
  live?: LiveOptions,
  held?: RunLease,
): Promise<void> {
  const row = leased?.snapshot ?? (await takeRunLease(deps.db, runId));
  if (!row) {
    // The run still waits on other calls: this stream announces the first of them, as Mastra's
    // continuation announces the next call of the step (a reminder: its request is shown already),
    // and reports the run so far, as Mastra's does (its text, calls and finished steps).
    const rootRunId = sink.runId;
    const stored = await findSnapshot(deps.db, rootRunId);
    if (stored) sink.seed(priorOfSnapshot(stored));
    const [next, ...rest] = waitingCalls(deps, await pendingActionsOfRoot(deps.db, rootRunId), rootRunId);
    if (next) sink.push(announcementChunk(rootRunId, next));
    sink.finishWaiting(rest.map(pendingOfAnnounced));
    return;
  }
  const lease = held ?? holdLease(deps, row.run_id, row.claim_epoch);
  const run = await restoreRun(root, row, deps, live).catch((error: unknown) => {
    lease.release();
    throw error;
  });
  run.lease = lease;
  // The top-level run's stream reports the whole run, what it did before the pause included.
  if (!run.parentRunId) sink.seed(priorOf(run));
  let failedSubAgent = false;
  try {
    let outcome: RunOutcome;
    try {
      outcome = await resumeLeased(run, emitterFor(run, sink), leased);
    } catch (error) {
      // What already ran must be on record even when the rest of the run fails.
      await appendAudit(deps.db, run.audit.splice(0));
      throw error;
    }
    await settleOutcome(root, run, outcome, sink);
  } catch (error) {
    if (hasAgentErrorCode(error, 'RUN_ABORTED')) {
      await cancelAbortedRun(run);
      throw error;
    }
    failedSubAgent = await handToCaller(run, error);
    if (!failedSubAgent) {
      await forgetFailedRun(run, error);
      throw error;
    }
  } finally {
    lease.release();
  }
  // As after a tool that failed, the caller is told and carries on (its own failure is its own).
  if (failedSubAgent) await continueRun(root, run.parentRunId!, deps, sink, undefined, live);
}

/**
 * A sub-agent run that failed (not one taken over): its record goes and its
 * parent's delegation is closed as failed, with the error as the reason the
 * parent's model is given. True when that was done; false leaves the failure
 * to the caller as before.
 */
async function handToCaller(run: RunState, error: unknown): Promise<boolean> {
  if (error instanceof LeaseLostError || !run.parentRunId || !run.parentToolCallId || !run.lease) return false;
  const closed = await failDelegation(run.deps.db, {
    runId: run.runId,
    epoch: run.lease.epoch,
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

async function restoreRun(root: AgentInternals, row: SnapshotRow, deps: RuntimeDeps, live?: LiveOptions): Promise<RunState> {
  const snapshot = row.snapshot as Snapshot;
  const lineage = agentsAlong(root, snapshot.path);
  const agent = lineage?.at(-1);
  if (!lineage || !agent) throw new SnapshotNotFoundError(row.run_id);
  const history =
    snapshot.history && row.thread_id && row.resource_id
      ? await loadThreadHistory(deps.db, row.thread_id, row.resource_id, snapshot.history.count, snapshot.history.upTo)
      : { messages: [], upTo: null };
  // The caller's settings are the top-level run's, as stream()'s are; a sub-agent keeps its own agent's.
  const top = row.parent_run_id === null;
  const settings = mergeCallSettings(agent.callSettings, top ? snapshot.options.modelSettings : undefined, top ? live?.settings : undefined);
  const telemetry = runTelemetry(agent.defaultOptions.telemetry, live?.telemetry);
  return {
    runId: row.run_id,
    rootRunId: row.root_run_id,
    parentRunId: row.parent_run_id,
    parentToolCallId: snapshot.parentToolCallId ?? null,
    ...(snapshot.top ? { top: snapshot.top } : {}),
    ...(snapshot.outputFrom !== undefined ? { outputFrom: snapshot.outputFrom } : {}),
    ...(snapshot.usage ? { usage: snapshot.usage } : {}),
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
    log: childLogger(deps.logger, { runId: row.run_id, rootRunId: row.root_run_id }),
    ...(live ? { live } : {}),
    ...(settings ? { settings } : {}),
    ...(telemetry ? { telemetry } : {}),
  };
}

/**
 * After a top-level run failed in this process, with its failure reported:
 * its record goes, so that no sweep takes it over only to fail again (a model
 * that keeps failing would otherwise be retried, and the failure posted, every
 * lease). Only while this process holds the lease; a run another process took
 * over is that process's. A failed sub-agent is its parent's to hear about
 * (see continueRun), not this.
 */
async function forgetFailedRun(run: RunState, error: unknown): Promise<void> {
  if (error instanceof LeaseLostError || run.parentRunId) return;
  // A record still being written would otherwise land after this and outlive the run.
  await run.recording;
  const lease = run.lease;
  if (!lease || lease.runId !== run.runId) return;
  await dropFailedRun(run.deps.db, run.runId, lease.epoch).catch((dropError: unknown) =>
    run.log.warn({ err: dropError }, 'could not remove the record of the failed run; a sweep will take it over'),
  );
}

/**
 * A run stopped by its caller's abortSignal is cancelled, not left to resume:
 * its record goes (while this process holds the lease), and when it is a
 * sub-agent's, so do the requests and records of the rest of its tree, with
 * `cancelled` in the audit log, so no sweep or click carries any of it on.
 */
async function cancelAbortedRun(run: RunState): Promise<void> {
  await run.recording;
  run.log.info('run aborted by its caller; cancelled');
  const lease = run.lease;
  try {
    // What ran before the abort stays on the trail.
    await appendAudit(run.deps.db, run.audit.splice(0));
    if (lease && lease.runId === run.runId) await dropFailedRun(run.deps.db, run.runId, lease.epoch);
    if (run.parentRunId) await cancelPendingRuns(run.deps.db, [run.rootRunId], 'api', 'The run was aborted.');
  } catch (error) {
    run.log.warn({ err: error }, 'could not cancel the record of the aborted run; a sweep will take it over');
  }
}

/** The state of a new top-level run of `agent`, with its thread's history loaded when it keeps memory. */
export async function freshRun(
  agent: AgentInternals,
  deps: RuntimeDeps,
  messages: LanguageModelV3Message[],
  options: Omit<StreamOptions, 'threadId' | 'resourceId'>,
  where: { threadId: string | null; resourceId: string | null },
  live?: LiveOptions,
): Promise<RunState> {
  const { threadId, resourceId } = where;
  const runId = options.runId ?? randomUUID();
  const memory = Boolean(agent.memory && threadId && resourceId);
  const history = memory
    ? await loadThreadHistory(deps.db, threadId!, resourceId!, agent.memory!.lastMessages)
    : { messages: [], upTo: null };
  const requestContext =
    options.requestContext instanceof Map ? options.requestContext : new Map(Object.entries(options.requestContext ?? {}));
  const rule = options.requireToolApproval;
  const stored = storableSettings(live?.settings);
  const settings = mergeCallSettings(agent.callSettings, live?.settings);
  const telemetry = runTelemetry(agent.defaultOptions.telemetry, live?.telemetry);
  return {
    runId,
    rootRunId: runId,
    parentRunId: null,
    parentToolCallId: null,
    agent,
    path: [agent.id],
    threadId,
    resourceId,
    history: history.messages,
    historyUpTo: history.upTo,
    messages,
    // Input with assistant messages of its own: the run's answer starts after it (see priorOf).
    ...(messages.some((m) => m.role === 'assistant') ? { outputFrom: messages.length } : {}),
    results: {},
    step: 0,
    options: {
      maxSteps: options.maxSteps ?? agent.defaultOptions.maxSteps ?? 10,
      // A function cannot be stored: a restored run applies `true` (fail safe).
      ...(rule !== undefined ? { requireToolApproval: typeof rule === 'boolean' ? rule : true } : {}),
      ...(options.requester ? { requester: options.requester } : {}),
      ...(options.caller ? { caller: options.caller } : {}),
      ...(memory ? { memory: true } : {}),
      ...(requestContext.size ? { requestContext: jsonSafe(Object.fromEntries(requestContext)) } : {}),
      ...(stored ? { modelSettings: stored } : {}),
    },
    approvalRules: approvalRulesFor([agent], rule),
    requestContext,
    hadSnapshot: false,
    audit: [],
    deps,
    log: childLogger(deps.logger, { runId, agentId: agent.id }),
    ...(live ? { live } : {}),
    ...(settings ? { settings } : {}),
    ...(telemetry ? { telemetry } : {}),
  };
}

function jsonSafe(value: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Runs a fresh top-level run in the background; the returned stream reports it. */
export function startRun(root: AgentInternals, run: RunState): AgentStream {
  const sink = new StreamSink(run.runId);
  sink.push({ type: 'start', runId: run.runId, payload: {} });
  // Not on record yet, so it must not wait for a slot (a stop would lose it); it takes one anyway.
  const slot = run.deps.runSlots.takeAnyway();
  const stopClock = recordFreshRunIfSlow(run);
  void (async () => {
    try {
      const outcome = await runSteps(run, sinkEmitter(sink));
      stopClock();
      await settleOutcome(root, run, outcome, sink);
    } catch (error) {
      stopClock();
      // A lost lease is not a failure of the run: the process that took it over carries it on.
      if (error instanceof LeaseLostError) run.log.warn('stopped a run another process took over');
      else if (!hasAgentErrorCode(error, 'RUN_ABORTED')) run.log.error({ err: error }, 'run failed');
      if (hasAgentErrorCode(error, 'RUN_ABORTED')) await cancelAbortedRun(run);
      else await forgetFailedRun(run, error);
      sink.finish('error', error);
    } finally {
      run.lease?.release();
      slot();
    }
  })();
  return sink.toStream();
}

/**
 * Continues a run in the background; the returned stream reports it. With
 * `startAfter`, the continuation waits for it first (a front end that records
 * a decision before acknowledging the click holds the run's work until the
 * acknowledgement is sent). Then it waits for a run slot (RunSlots) in the
 * queue of `priority`. A run already leased (by the decision, or taken over)
 * keeps its lease renewed while it waits, so no other instance takes over a
 * run that is merely queued.
 */
export function startContinuation(
  root: AgentInternals,
  deps: RuntimeDeps,
  runId: string,
  rootRunId: string,
  leased?: LeasedRun,
  startAfter?: PromiseLike<unknown>,
  live?: LiveOptions,
  priority: RunPriority = 'decision',
): AgentStream {
  const sink = new StreamSink(rootRunId);
  const held = leased ? holdLease(deps, leased.snapshot.run_id, leased.snapshot.claim_epoch) : undefined;
  const go = (release: ReleaseSlot) => continueRun(root, runId, deps, sink, leased, live, held).finally(release);
  const queue = () => deps.runSlots.take(priority).then(go);
  // Started in this tick when a slot is free, as before there were slots.
  const now = startAfter ? undefined : deps.runSlots.tryTake();
  const running = now ? go(now) : startAfter ? Promise.resolve(startAfter).then(queue, queue) : queue();
  running.catch((error: unknown) => {
    // A lost lease is not a failure of the run: the process that took it over carries it on (and has logged it).
    if (error instanceof LeaseLostError) deps.logger.warn({ runId, rootRunId }, 'stopped continuing a run another process took over');
    else if (!hasAgentErrorCode(error, 'RUN_ABORTED')) deps.logger.error({ err: error, runId, rootRunId }, 'run failed while resuming');
    sink.finish('error', error);
  });
  return sink.toStream();
}
