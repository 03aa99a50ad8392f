import type { LanguageModelV3Message, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { Logger } from '../logger.js';
import type { Db } from '../db/database.js';
import type { Policy } from '../approvals/policy-schema.js';
import type { GroupResolver } from '../approvals/group-resolver.js';
import type { RequireToolApproval } from './requires-approval.js';
import type { AgentInternals } from './agent-internals.js';
import { appendAudit, type AuditInput } from '../approvals/audit.js';
import type { ClaimHold } from './hold-claim.js';
import { putOnRecord } from './put-on-record.js';

/** Shared by every agent in a tree: where state lives and which rules apply. */
export interface RuntimeDeps {
  db: Db;
  logger: Logger;
  policy: Policy;
  resolveGroupMembers?: GroupResolver;
  botUserId?: string;
  /** How long an approval grant stays usable after the decision. */
  grantTtlMs: number;
  /**
   * How long a run being continued may go without its process renewing the
   * claim (it does so every third of this) before another process may take it
   * over: what keeps a crash mid-run from leaving the run stuck.
   */
  runLeaseMs: number;
  /**
   * A top-level run that has neither paused nor finished after this long is
   * put on record under a claim (putOnRecordIfSlow), so that a stop of this
   * process does not lose it; Infinity turns that off.
   */
  recordRunAfterMs: number;
  /**
   * Keep the answer of every top-level run that was on record in run_results, written with the
   * run's end, until its front end has shown it (the Slack app turns this on: a run that ended in
   * PostgreSQL must not have its answer only in the memory of a process that may stop).
   */
  keepResults: boolean;
}

/** Options that survive a restart: plain JSON only. */
export interface DurableOptions {
  maxSteps: number;
  /**
   * The request's own approval rule, handed down to sub-agent runs. A function given per
   * request cannot be stored; it is stored as `true` (fail safe).
   */
  requireToolApproval?: boolean;
  autoResumeSuspendedTools?: boolean;
  requester?: string;
  memory?: boolean;
  requestContext?: Record<string, unknown>;
}

/** Exactly what resuming needs; everything else is re-derived from code or storage. */
export interface Snapshot {
  v: 1;
  path: string[];
  parentToolCallId?: string;
  messages: LanguageModelV3Message[];
  history?: { upTo: string | null; count: number };
  /** Results already known for the calls of the last step. */
  results: Record<string, LanguageModelV3ToolResultOutput>;
  step: number;
  options: DurableOptions;
}

export interface RunState {
  runId: string;
  rootRunId: string;
  parentRunId: string | null;
  parentToolCallId: string | null;
  agent: AgentInternals;
  path: string[];
  threadId: string | null;
  resourceId: string | null;
  history: LanguageModelV3Message[];
  historyUpTo: string | null;
  messages: LanguageModelV3Message[];
  results: Record<string, LanguageModelV3ToolResultOutput>;
  step: number;
  options: DurableOptions;
  /**
   * The approval rules that hold for this run's calls (see approvalRulesFor): the request's own
   * rule (live, so a function given per request works until the run is stored) or the top-level
   * agent's default, and the default of every agent down to this one.
   */
  approvalRules: RequireToolApproval[];
  requestContext: Map<string, unknown>;
  hadSnapshot: boolean;
  /** Audit events waiting to ride on the run's next write. */
  audit: AuditInput[];
  deps: RuntimeDeps;
  log: Logger;
  /**
   * The claim under which this process continues the run (a sub-agent run
   * started inside a continuation shares its parent's); absent for a run
   * that was never suspended, which nobody else can see or take over.
   */
  claim?: ClaimHold;
  /** The step whose calls were last written down before running (see checkpointStep). */
  checkpointedStep?: number;
  /** A fresh run being put on record (putOnRecord); what it writes next waits for it. */
  onRecord?: Promise<void>;
}

/** Before each model call, execute and write of a continued run: stops here once the run was taken over. */
export function stillHeld(run: RunState): Promise<void> | undefined {
  return run.claim?.check();
}

/**
 * Before a continued run runs a tool nobody approved (or hands a call to a
 * sub-agent), its step is written down under the claim, once per step. A
 * process that takes the run over after a crash then restores the step with
 * the call already made, and reports the call interrupted instead of asking
 * the model again, which could run the tool a second time. Approved calls and
 * answered suspensions need no such record: their spent grant or answered row
 * already says they may have run. A top-level run that was never suspended is
 * put on record here first (putOnRecord), with this step; sub-agent runs are
 * covered by their parent's record of the delegating call. The audit events
 * the run owes (the call's `started` among them) are written before this
 * resolves, with the record when there is one to write.
 */
export async function checkpointStep(run: RunState): Promise<void> {
  if (!run.claim && !run.parentRunId) await putOnRecord(run);
  if (run.claim?.runId === run.runId && run.checkpointedStep !== run.step) {
    await run.claim.checkpoint(toSnapshot(run), run.audit.splice(0));
    run.checkpointedStep = run.step;
  }
  // What is still owed (the step was written already, or the run is a sub-agent's under its
  // parent's record): on its own, since the call must not start before its event is stored.
  if (run.audit.length > 0) await appendAudit(run.deps.db, run.audit.splice(0));
}

export function toSnapshot(run: RunState): Snapshot {
  return {
    v: 1,
    path: run.path,
    ...(run.parentToolCallId ? { parentToolCallId: run.parentToolCallId } : {}),
    messages: run.messages,
    ...(run.options.memory ? { history: { upTo: run.historyUpTo, count: run.history.length } } : {}),
    results: run.results,
    step: run.step,
    options: run.options,
  };
}
