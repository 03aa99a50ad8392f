/** The agent runtime's public types: what callers give it, and the chunks, results and decisions it gives back. */
import type { PendingAction } from '../db/rows.js';
import type { BindingPayload } from './request-binding.js';
import type { LimitHit } from '../approvals/apply-limits.js';
import type { FreezeInForce } from '../approvals/freeze-windows.js';
import type { RememberedUnused } from '../db/remembered-grants.js';
import type { Actor } from '../approvals/authorize-actor.js';
import type { SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { ModelSettings } from './model-settings.js';
import type { TelemetrySettings } from './telemetry.js';

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

/** The chunk vocabulary of `agent.stream()`; every chunk names its run. */
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
