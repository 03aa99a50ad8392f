/** The runtime's own model of a run: what it keeps, plans and shares while running one; not part of the package's API. */
import type { Tool } from './tool.js';
import type { LanguageModelV3Message, LanguageModelV3ToolResultOutput, LanguageModelV3, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import type { AuditInput } from '../db/audit.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { Policy } from '../approvals/policy-types.js';
import type { GroupResolver } from '../approvals/group-resolver.js';
import type { SpentGrant } from '../db/rows.js';
import type { PendingWrite, SnapshotWrite } from '../db/run-snapshots.js';
import type { McpToolIdentity } from '../approvals/mcp-tool-name.js';
import type { Workspace } from '../approvals/workspace.js';
import type { CallSettings } from './model-settings.js';
import type { RunTelemetry, TelemetrySettings } from './telemetry.js';
import type { RunSlots } from './run-slots.js';
import type { ApprovalRequest, SuspensionRequest, MemoryOptions, RequireToolApproval, BeforeToolCallHook } from './api-types.js';

/** What the step loop needs from an agent, whatever class provides it. */
export interface AgentInternals {
  readonly id: string;
  readonly instructions: string;
  readonly model: LanguageModelV3;
  readonly tools: Readonly<Record<string, Tool>>;
  /** Sub-agents by the tool name the model sees (`agent-<key>`). */
  readonly subAgents: Readonly<Record<string, AgentInternals>>;
  readonly toolSpecs: LanguageModelV3FunctionTool[];
  readonly memory?: MemoryOptions;
  readonly defaultOptions: {
    maxSteps?: number;
    requireToolApproval?: RequireToolApproval;
    autoResumeSuspendedTools?: boolean;
    telemetry?: TelemetrySettings;
  };
  /** The agent's modelSettings and providerOptions, checked when it was constructed. */
  readonly callSettings?: CallSettings;
  readonly hooks: { beforeToolCall?: BeforeToolCallHook };
}

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
  | {
      kind: 'finished';
      /** Every step's text run together, as the model wrote it. */
      text: string;
      /** The same with each step's text its own paragraph: what a front end keeps (run_results). */
      answer: string;
      finishReason: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';
    }
  | { kind: 'suspended'; plan: SuspensionPlan };

/** Shared by every agent in a tree: where state lives and which rules apply. */
export interface RuntimeDeps {
  db: Db;
  logger: Logger;
  policy: Policy;
  /**
   * Evaluated beside `policy` for every call that reaches the gate, never enforced: where the
   * verdicts differ (would ask, would not, would deny, other approvers or quorum) a `shadow-diff`
   * audit event and a metric record it (see shadow-policy.ts). Swapped on reload like `policy`.
   */
  shadowPolicy?: Policy;
  /** What the policy takes for now: which change freezes are in force. The system clock unless a test gives one. */
  now: () => Date;
  resolveGroupMembers?: GroupResolver;
  botUserId?: string;
  /**
   * The workspace the front end serves (Agent.serveWorkspace): an actor whose team is given
   * must be one of its members, or of a team the policy's allowExternalTeams names.
   */
  workspace?: Workspace;
  /** How long an approval grant stays usable after the decision. */
  grantTtlMs: number;
  /**
   * How long a run being continued may go without its process renewing the
   * lease (it does so every third of this) before another process may take it
   * over: what keeps a crash mid-run from leaving the run stuck.
   */
  runLeaseMs: number;
  /**
   * A top-level run that has neither paused nor finished after this long is
   * put on record under a lease (recordFreshRunIfSlow), so that a stop of this
   * process does not lose it; Infinity turns that off.
   */
  recordRunAfterMs: number;
  /** The slots runs of this process take (maxConcurrentRuns): continuations wait here for one. */
  runSlots: RunSlots;
  /**
   * Keep the answer of every top-level run that was on record in run_results, written with the
   * run's end, until its front end has shown it (the Slack app turns this on: a run that ended in
   * PostgreSQL must not have its answer only in the memory of a process that may stop).
   */
  keepResults: boolean;
  /**
   * The MCP server and tool behind a call's name, for the policy (see requirementFor), when
   * the agent at `path` has MCP tools; undefined for any other name.
   */
  mcpIdentity?: (toolName: string, path: readonly string[] | null) => McpToolIdentity | undefined;
}

/** Options that survive a restart: plain JSON only. */
interface DurableOptions {
  maxSteps: number;
  /**
   * The request's own approval rule, handed down to sub-agent runs. A function given per
   * request cannot be stored; it is stored as `true` (fail safe).
   */
  requireToolApproval?: boolean;
  autoResumeSuspendedTools?: boolean;
  requester?: string;
  /** See StreamOptions.caller: who started a run nobody requested. */
  caller?: string;
  memory?: boolean;
  requestContext?: Record<string, unknown>;
  /** The request's own modelSettings and providerOptions (top-level run only), without headers. */
  modelSettings?: CallSettings;
}

/**
 * What a caller gives a run that lives only in this process (an abort signal,
 * a tracer, headers): never stored, so a continuation has only what its own
 * caller gives it.
 */
export interface LiveOptions {
  abortSignal?: AbortSignal;
  telemetry?: TelemetrySettings;
  /** The caller's modelSettings and providerOptions, checked, headers included. */
  settings?: CallSettings;
}

/** Exactly what resuming needs; everything else is re-derived from code or storage. */
export interface Snapshot {
  v: 1;
  path: string[];
  parentToolCallId?: string;
  /** A sub-agent run's top-level delegation call (see RunState.top). */
  top?: TopCall;
  /** Where the run's own messages start, when its input had assistant messages (else at the first one). */
  outputFrom?: number;
  /** Tokens of the run's model calls so far. */
  usage?: { inputTokens?: number; outputTokens?: number };
  messages: LanguageModelV3Message[];
  history?: { upTo: string | null; count: number };
  /** Results already known for the calls of the last step. */
  results: Record<string, LanguageModelV3ToolResultOutput>;
  step: number;
  options: DurableOptions;
}

/** The top-level run's delegation call a sub-agent run works under (at any depth). */
export interface TopCall {
  toolCallId: string;
  toolName: string;
  args: unknown;
}

export interface RunState {
  runId: string;
  rootRunId: string;
  parentRunId: string | null;
  parentToolCallId: string | null;
  /** For a sub-agent run: the top-level delegation it works under, by which its pauses are announced. */
  top?: TopCall;
  /** See Snapshot.outputFrom. */
  outputFrom?: number;
  /** Tokens of the run's model calls so far (restored from its snapshot). */
  usage?: { inputTokens?: number; outputTokens?: number };
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
   * The lease under which this process continues the run (a sub-agent run
   * started inside a continuation shares its parent's); absent for a run
   * that was never suspended, which nobody else can see or take over.
   */
  lease?: RunLease;
  /** The step whose calls were last written down before running (see checkpointStep). */
  checkpointedStep?: number;
  /** A fresh run being put on record (recordFreshRun); what it writes next waits for it. */
  recording?: Promise<void>;
  /** What the caller gave the run in this process (see LiveOptions); a sub-agent run shares its abort signal and telemetry. */
  live?: LiveOptions;
  /** The settings of this run's model calls: its agent's, then the request's (see mergeCallSettings). */
  settings?: CallSettings;
  /** Set when the run's spans are on. */
  telemetry?: RunTelemetry;
}

export interface ToolCallInput {
  toolCallId: string;
  toolName: string;
  input: string;
}

/** What one fresh tool call of a step turned into. */
export type CallOutcome =
  | { kind: 'result'; output: LanguageModelV3ToolResultOutput }
  | { kind: 'pending'; plan: SuspensionPlan };

/** What the lease says about a call beyond its row (see LeasedRun). */
export interface LeaseFacts {
  /** The grant the leasing decision spent for this call. */
  spentGrant: SpentGrant | undefined;
  /** The run was taken over from a process that stopped. */
  recovered: boolean;
}

/** A lease this process holds on a run while it continues it. */
export interface RunLease {
  /** The run the lease is on (sub-agent runs started under it share it). */
  readonly runId: string;
  /** Which lease on the run this is (run_snapshots.claim_epoch). */
  readonly epoch: number;
  /**
   * Resolves (or returns undefined at once) while the lease is still this
   * process's; rejects with LeaseLostError once another process took the run
   * over. Called before each model call, each execute and the run's next write.
   */
  check(): Promise<void> | undefined;
  /**
   * Stores `snapshot` as where the run stands, with `audit`, renewing the
   * lease; rejects with LeaseLostError (having written nothing) once it is not ours.
   */
  checkpoint(snapshot: Snapshot, audit?: AuditInput[]): Promise<void>;
  release(): void;
}

/** What a tool call reaches: one of the agent's tools, or a sub-agent it delegates to. */
export type CallTarget = { kind: 'tool'; tool: Tool } | { kind: 'agent'; agent: AgentInternals };
