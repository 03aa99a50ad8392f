import type { PendingAction } from '../db/rows.js';
import type { BindingPayload } from './request-binding.js';
import type { Tool } from './tool.js';
import type { LanguageModelV3Message, LanguageModelV3ToolResultOutput, LanguageModelV3, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import type { AuditInput } from '../db/audit.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { Policy } from '../approvals/policy-types.js';
import type { LimitHit } from '../approvals/apply-limits.js';
import type { FreezeInForce } from '../approvals/freeze-windows.js';
import type { GroupResolver } from '../approvals/group-resolver.js';
import type { SpentGrant } from '../db/pending-actions.js';
import type { RememberedUnused } from '../db/remembered-grants.js';
import type { PendingWrite, SnapshotWrite } from '../db/run-snapshots.js';
import type { McpToolIdentity } from '../approvals/mcp-tool-name.js';
import type { Actor } from '../approvals/authorize-actor.js';
import type { Workspace } from '../approvals/workspace.js';
import type { SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { CallSettings, ModelSettings } from './model-settings.js';
import type { RunTelemetry, TelemetrySettings } from './telemetry.js';
import type { RunSlots } from './run-slots.js';

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

/** The chunk vocabulary of `agent.stream()`; every chunk names its run. */

/**
 * A call waiting for approval, as its `tool-call-approval` chunk announces it. What the approval is
 * bound to besides the arguments (BindingPayload, see bound-call.ts) rides along: `statedReason`,
 * the model's own words for why it makes the call (show them as the agent's, escaped); `preview`,
 * what the call acts on and its state digest, or `{ failed }`; `toolDigest`, the MCP tool definition
 * it is pinned to; `askedAgain`, why it replaces an approved request whose call did not run.
 */
export interface ApprovalRequest extends BindingPayload {
  /**
   * The call to decide by. For a sub-agent's call it is the top-level delegation's, as in
   * Mastra (the supervisor's stream shows the inner call under it); `innerToolCallId` is the
   * inner call's own. Decisions address the call by either.
   */
  toolCallId: string;
  /** The call's own id, when it is a sub-agent's (toolCallId is then the top-level delegation's). */
  innerToolCallId?: string;
  toolName: string;
  args: unknown;
  /** Agent ids from the top-level agent down to the one that owns the tool. */
  path: string[];
  /** The run that owns the tool call (differs from the stream's run for sub-agents). */
  runId: string;
  actionId: number;
  fingerprint: string;
  policyVersion: string;
  requester?: string;
  approvers: string[];
  quorum: number;
  expiresAt: string;
  /** The cumulative limits the call went over, when one made it ask (more). */
  limitHits?: LimitHit[];
  /** A remembered approval matched the call but did not cover what it asks now, and why. */
  rememberedUnused?: RememberedUnused;
  /** What started the run when nobody requested it (no `requester`; see StreamOptions.caller). */
  caller?: string;
  /** The change freezes in force for the call when it was asked, and until when (see Requirement.freezes). */
  freezes?: FreezeInForce[];
}

export interface SuspensionRequest {
  /** As in ApprovalRequest: for a sub-agent's tool, the top-level delegation's call. */
  toolCallId: string;
  /** For a sub-agent's tool, the top-level delegation (`agent-<key>`), as in Mastra; `innerToolName` is the tool. */
  toolName: string;
  /** For a sub-agent's tool, the top-level delegation's arguments; `innerArgs` are the tool's. */
  args: unknown;
  suspendPayload: unknown;
  innerToolCallId?: string;
  innerToolName?: string;
  innerArgs?: unknown;
  path: string[];
  runId: string;
  actionId: number;
}

/** An approved call that did not run: what was about to run did not match the approval's grant. */
export interface BlockedCall {
  toolCallId: string;
  toolName: string;
  path: string[];
  /** The run that owns the tool call (differs from the stream's run for sub-agents). */
  runId: string;
}

/** A call that ran without a card under a remembered approval (see ApprovalSettings.rememberFor). */
export interface RememberedCall {
  toolCallId: string;
  toolName: string;
  path: string[];
  /** The run that owns the tool call (differs from the stream's run for sub-agents). */
  runId: string;
  /** The approved request written for this call. */
  actionId: number;
  rememberedGrantId: number;
  /** Who approved and chose to remember it. */
  allowedBy: string;
  requester: string;
  expiresAt: string;
}

/** A call that did not go on (declined, expired, cancelled): Mastra's `tool-output-denied`, with what the model was told. */
export interface DeniedCall {
  toolCallId: string;
  toolName: string;
  /** The arguments that were declined (an approver's edit included). */
  args: unknown;
  approval: { id: string; approved: false; reason?: string };
  /** The request's status; `denied` for a call the policy refused without asking (see `policy`). */
  status: PendingAction['status'] | 'denied';
  /** Set when the policy refused the call: its reason, the part of the policy that said so, the freeze. */
  policy?: { reason: string; source: string; freeze?: { name: string; until?: string } };
  /** Who declined or cancelled it, when someone did. */
  by?: string;
  /** What the model was told. */
  message: string;
  path: string[];
  runId: string;
}

/** A paused call that goes on: approved, or a suspended tool given its answer (Mastra adds this chunk in 1.73). */
export interface ResumedCall {
  /** As announced: for a sub-agent's call, the top-level delegation's (innerToolCallId is its own). */
  toolCallId: string;
  innerToolCallId?: string;
  toolName: string;
  args: unknown;
  kind: 'approval' | 'suspension';
  /** For a suspension: what the tool passed to `suspend()`, as its tool-call-suspended chunk carried it. */
  suspendPayload?: unknown;
  /** Who approved or answered it, when known. */
  by?: string;
  path: string[];
  runId: string;
}

/** Tokens of a model call or a run (undefined where the provider did not say). */
export interface Usage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
}

export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other' | 'suspended';

export type AgentChunk =
  | { type: 'start'; runId: string; payload: Record<string, never> }
  | { type: 'text-delta'; runId: string; payload: { text: string } }
  | { type: 'tool-call'; runId: string; payload: { toolCallId: string; toolName: string; args: unknown } }
  | {
      type: 'tool-result';
      runId: string;
      payload: { toolCallId: string; toolName: string; args: unknown; result: unknown; isError: boolean };
    }
  | { type: 'tool-call-approval'; runId: string; payload: ApprovalRequest }
  | { type: 'tool-call-suspended'; runId: string; payload: SuspensionRequest }
  | { type: 'tool-call-blocked'; runId: string; payload: BlockedCall }
  | { type: 'tool-call-remembered'; runId: string; payload: RememberedCall }
  | { type: 'tool-output-denied'; runId: string; payload: DeniedCall }
  | { type: 'tool-call-resumed'; runId: string; payload: ResumedCall }
  | { type: 'step-finish'; runId: string; payload: { step: number; usage?: Usage } }
  | { type: 'finish'; runId: string; payload: { finishReason: Exclude<FinishReason, 'suspended'>; text: string } }
  | { type: 'error'; runId: string; payload: { error: unknown } };

/** What `generate()` and `result` report; `suspendPayload` is set when the run paused. */
export interface SuspendPayload {
  /** As the chunk that announced it (for a sub-agent's call, the top-level delegation's). */
  toolCallId: string;
  toolName: string;
  args: unknown;
  path: string[];
  runId: string;
  kind: 'approval' | 'suspension';
  /**
   * For suspensions: what the tool passed to `suspend()`. From generate() and its kin, for a
   * sub-agent's call: the inner call, `{ toolCallId, toolName, args, suspendPayload? }`.
   */
  suspendPayload?: unknown;
  innerToolCallId?: string;
  innerToolName?: string;
  innerArgs?: unknown;
}

/** A tool call as results list it: flat, and in Mastra's chunk shape (`payload`) too. */
export interface ToolCallEntry {
  type: 'tool-call';
  runId: string;
  from: 'AGENT';
  payload: { toolCallId: string; toolName: string; args: unknown };
  toolCallId: string;
  toolName: string;
  args: unknown;
}

/** A tool result as results list it: flat, and in Mastra's chunk shape (`payload`) too. */
export interface ToolResultEntry {
  type: 'tool-result';
  runId: string;
  from: 'AGENT';
  payload: { toolCallId: string; toolName: string; args: unknown; result: unknown; isError: boolean };
  toolCallId: string;
  toolName: string;
  args: unknown;
  result: unknown;
  isError: boolean;
}

/** One step of a run: what the model said and called, and the results of those calls. */
export interface StepResult {
  text: string;
  toolCalls: ToolCallEntry[];
  toolResults: ToolResultEntry[];
  finishReason: string;
  usage: Usage;
}

export interface GenerateResult {
  runId: string;
  /**
   * Every step's text run together, before a pause too. While the run is paused, a stream's
   * result has the paused step's text as well; generate() and its kin (Mastra's) only the
   * finished steps'.
   */
  text: string;
  finishReason: FinishReason;
  /**
   * The call the run waits on, as its chunk announced it; from generate() and its kin, a
   * sub-agent's call is the delegation carrying the inner call as `suspendPayload` (Mastra's).
   */
  suspendPayload?: SuspendPayload;
  /** Every call still waiting, in order, when the run paused. */
  pending: SuspendPayload[];
  /** Every call of the run so far, continuations included (Mastra's): the paused step's too. */
  toolCalls: ToolCallEntry[];
  /** Every result of the run so far; while it is paused, not those of the step it paused in (Mastra's). */
  toolResults: ToolResultEntry[];
  /** The run's finished steps, continuations included; not the step it paused in. */
  steps: StepResult[];
  /** Tokens of every model call of the run so far (a sub-agent's not included). */
  usage: Usage;
  error?: unknown;
}

/** Who acts: a person (their team carried for the workspace rule) or code. See approvals/authorize-actor.ts. */
export type { Actor } from '../approvals/authorize-actor.js';

/**
 * Every way a decision can end. Callers (the Slack listener, the code API)
 * must handle each: a refused click is an ordinary outcome, not an exception.
 * `stream` is present when the decision let the run continue.
 */
export type Decision =
  | { outcome: 'approved'; action: PendingAction; stream?: AgentStream; remembered?: { id: number; expiresAt: Date } }
  | { outcome: 'approval-recorded'; action: PendingAction; approvals: string[]; quorum: number; alreadyCounted: boolean }
  | { outcome: 'declined'; action: PendingAction; stream?: AgentStream }
  | { outcome: 'not-allowed'; action: PendingAction; why: string; message: string }
  | { outcome: 'already-decided'; action: PendingAction }
  | { outcome: 'expired'; action: PendingAction; stream?: AgentStream }
  | { outcome: 'policy-changed'; action: PendingAction; stream?: AgentStream }
  | { outcome: 'fingerprint-mismatch'; action: PendingAction }
  | { outcome: 'not-found'; runId: string; toolCallId?: string; runExists: boolean };

export interface DecisionRequest {
  /** The run (top-level, or the sub-agent's that owns the call); needed unless `actionId` names the request. */
  runId?: string;
  toolCallId?: string;
  /** Acting user; code that omits it acts as `api` and is held to the same policy. */
  actor?: Actor;
  /** At most 3,000 characters once trimmed (MAX_REASON_LENGTH); a longer one is refused as `not-allowed`, why `reason-too-long`. */
  reason?: string;
  /** When given (a Slack button carries one), the pending call must still have this fingerprint (prefix). */
  fingerprint?: string;
  /** Or address the pending action by its id (Slack buttons do). */
  actionId?: number;
  /**
   * Approve and also remember the approval for the policy's `rememberFor` (once the request is
   * approved): identical later calls by the same requester run without asking. Ignored where the
   * policy does not offer it.
   */
  remember?: boolean;
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
   * claim (it does so every third of this) before another process may take it
   * over: what keeps a crash mid-run from leaving the run stuck.
   */
  runLeaseMs: number;
  /**
   * A top-level run that has neither paused nor finished after this long is
   * put on record under a claim (recordFreshRunIfSlow), so that a stop of this
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
export interface DurableOptions {
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
   * The claim under which this process continues the run (a sub-agent run
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

export interface ResumeRequest {
  runId: string;
  toolCallId?: string;
  actionId?: number;
  actor?: Actor;
}

export interface MemoryOptions {
  /** How many earlier messages of the thread the model sees. */
  lastMessages: number;
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

/** What the claim says about a call beyond its row (see LeasedRun). */
export interface ClaimFacts {
  /** The grant the claiming decision spent for this call. */
  spentGrant: SpentGrant | undefined;
  /** The run was taken over from a process that stopped. */
  recovered: boolean;
}

export interface ExpiredRequest {
  action: PendingAction;
  /** The run's continuation, when this expiry was the last thing it waited on. */
  stream?: AgentStream;
}

export type UserInput = string | Array<{ role: 'user' | 'assistant'; content: string }>;

export interface StreamOptions {
  runId?: string;
  threadId?: string;
  resourceId?: string;
  /** Mastra-style alias for threadId/resourceId. */
  memory?: { thread: string; resource: string };
  /** The user on whose behalf the run acts (may not approve their own request unless the policy allows). */
  requester?: string;
  /**
   * A run without `requester` is unattended: nobody is present to ask (an API call, a scheduled
   * job), and the policy's `unattended` decides what its calls that need approval do. `caller`
   * names what started it (`"nightly-billing"`, `"api:ci-bot"`; 1–100 characters, no line breaks),
   * so its requests and audit events say who asked when no person did. Kept with each request
   * (`caller`) and each `requested`/`denied` audit event. Allowed with a requester too.
   */
  caller?: string;
  /**
   * The requester's team as the front end received it. When the agent serves a workspace
   * (serveWorkspace), a requester from another team (not trusted by allowExternalTeams) starts
   * no run: stream() throws OutsideWorkspaceError and the refusal is audited.
   */
  requesterTeamId?: string;
  requireToolApproval?: RequireToolApproval;
  autoResumeSuspendedTools?: boolean;
  maxSteps?: number;
  requestContext?: Map<string, unknown> | Record<string, unknown>;
  /** Call settings for this run's model calls, over the agent's defaultOptions.modelSettings field by field. */
  modelSettings?: ModelSettings;
  /** Provider-specific options (e.g. `{ openai: { reasoningEffort: 'low' } }`), merged over the agent's by provider. */
  providerOptions?: SharedV3ProviderOptions;
  /**
   * Stops the run: its model call is aborted, no further tool runs, and the run is cancelled (its record and
   * pending requests go, so nothing resumes it); the stream ends with a RunAbortedError.
   */
  abortSignal?: AbortSignal;
  /** Spans for this run's model and tool calls (and its sub-agents'), instead of the agent's defaultOptions.telemetry. */
  telemetry?: TelemetrySettings;
}

/** What resumeStream takes besides the resume data: the options that live only in this process. */
export type ContinuationOptions = Pick<StreamOptions, 'modelSettings' | 'providerOptions' | 'abortSignal' | 'telemetry'>;

export interface RequireToolApprovalContext {
  /** The name the model called: the tool's key in `tools` (or `agent-<key>` for a sub-agent). */
  toolName: string;
  args: unknown;
  /** The request's requestContext as a plain object, as Mastra gives it. */
  requestContext: Record<string, unknown>;
  /** Agent ids from the top-level agent down to the one making the call. */
  path: string[];
  workspace?: unknown;
}

export type RequireToolApproval =
  | boolean
  | ((ctx: RequireToolApprovalContext) => boolean | Promise<boolean>);

export interface BeforeToolCallContext {
  /** The name the model called: the tool's key in `tools` (or `agent-<key>` for a sub-agent). */
  toolName: string;
  toolCallId: string;
  runId: string;
  /** The validated arguments about to run; `input` is the same value, under the name Mastra uses. */
  args: unknown;
  input: unknown;
  /** Agent ids from the top-level agent down to the one making the call. */
  path: string[];
  requestContext: Map<string, unknown>;
}

/**
 * What a hook may return:
 * - nothing (`undefined`), `{}` or `{ proceed: true }`: the call runs;
 * - `{ args }` (with `proceed: true` or alone): the call runs with these arguments instead (an
 *   approved call then no longer matches its grant and is blocked);
 * - `{ proceed: false, output? }`: the call does not run and the model receives `output`;
 * - `{ block: reason }`: the call does not run and the model is told it was blocked.
 * Anything else blocks the call too: a hook whose answer cannot be read must not let a call through.
 */
export type BeforeToolCallVerdict =
  | void
  | { proceed?: true; args?: unknown }
  | { proceed: false; output?: unknown }
  | { block: string };

export type BeforeToolCallHook = (ctx: BeforeToolCallContext) => BeforeToolCallVerdict | Promise<BeforeToolCallVerdict>;

/** A claim this process holds on a run while it continues it. */
export interface RunLease {
  /** The run the claim is on (sub-agent runs started under it share it). */
  readonly runId: string;
  /** Which claim on the run this is (run_snapshots.claim_epoch). */
  readonly epoch: number;
  /**
   * Resolves (or returns undefined at once) while the claim is still this
   * process's; rejects with LeaseLostError once another process took the run
   * over. Called before each model call, each execute and the run's next write.
   */
  check(): Promise<void> | undefined;
  /**
   * Stores `snapshot` as where the run stands, with `audit`, renewing the
   * claim; rejects with LeaseLostError (having written nothing) once it is not ours.
   */
  checkpoint(snapshot: Snapshot, audit?: AuditInput[]): Promise<void>;
  release(): void;
}

/** What a tool call reaches: one of the agent's tools, or a sub-agent it delegates to. */
export type CallTarget = { kind: 'tool'; tool: Tool } | { kind: 'agent'; agent: AgentInternals };

export interface AgentStream {
  runId: string;
  fullStream: AsyncIterable<AgentChunk>;
  textStream: AsyncIterable<string>;
  /** The run's whole answer so far: after an approval or a resume, the text before the pause too. */
  text: Promise<string>;
  finishReason: Promise<FinishReason>;
  suspendPayload: Promise<SuspendPayload | undefined>;
  toolCalls: Promise<ToolCallEntry[]>;
  toolResults: Promise<ToolResultEntry[]>;
  steps: Promise<StepResult[]>;
  usage: Promise<Usage>;
  result: Promise<GenerateResult>;
  /** Waits for the run to end (or pause) without reading the chunks. */
  consumeStream(): Promise<GenerateResult>;
}

export interface RecoveredRun {
  /** The run taken over (a sub-agent's run, or the top-level one). */
  runId: string;
  rootRunId: string;
  /** Its continuation, from where its snapshot left it. */
  stream: AgentStream;
}
