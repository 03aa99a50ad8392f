import type { ContinuationOptions, StreamOptions, UserInput, GenerateResult, Actor, Decision, DecisionRequest, MemoryOptions, ResumeRequest, BeforeToolCallHook, AgentStream, RequireToolApproval, ApprovalRequest, SuspensionRequest } from './api-types.js';
import type { AgentInternals, RuntimeDeps } from './run-model.js';
import type { GroupResolver } from '../approvals/group-resolver.js';
import type { JSONSchema7, LanguageModelV3, LanguageModelV3FunctionTool, LanguageModelV3Message, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { z } from 'zod';
import type { Database, Db } from '../db/database.js';
import type { Policy } from '../approvals/policy-types.js';
import type { SuspendedRun, PendingAction } from '../db/rows.js';
import { StreamSink, storedActionOf, requestsOfPause, type AnnouncedRequest } from './stream.js';
import { asGenerated } from './generated-result.js';
import { checkDecision, decide, type DecisionCheck, type DecisionCheckOptions, type DecisionContext, locateAction, mayDecide, type DecisionVerdict, workspaceRefusal } from './decide.js';
import { editSchemaOf, editToolCall, type EditOutcome, type EditRequest } from './edit.js';
import { mayAnswer, resumeSuspended, tryAutoResume } from './answer.js';
import { maySee, type SeenRequest } from './may-see.js';
import { waitingFor, type WaitingPage } from './waiting-for.js';
import type { Authorization } from '../approvals/authorize-actor.js';
import { subAgentToolName, delegationInput, findAgent } from './run-state.js';
import { AgentError, AmbiguousToolCallError, OutsideWorkspaceError, ResumeValidationError, SnapshotNotFoundError, ToolCallNotPendingError, hasAgentErrorCode } from './errors.js';
import type { Workspace } from '../approvals/workspace.js';
import { appendAudit } from '../db/audit.js';
import { randomUUID } from 'node:crypto';
import { checkCallSettings, type CallSettings, type ModelSettings } from './model-settings.js';
import type { TelemetrySettings } from './telemetry.js';
import { checkTelemetry, liveOptions } from './live-options.js';
import { resolveModel, type ModelInput, type ProviderSettings } from './model.js';
import type { Tool } from './tool.js';
import { listSuspendedRuns, findSnapshot } from '../db/run-snapshots.js';
import { sweepExpired, recoverStaleRuns, type SweepExpiredOptions } from './sweeps.js';
import { freshRun, startRun, startContinuation } from './run-lifecycle.js';
import { unreachable } from '../unreachable.js';
import { findAction, latestApprovalId, closeAction } from '../db/pending-actions.js';
import { cancelRuns } from './cancel-runs.js';
import { requirementOfRequest, type RequestFacts, type Requirement } from '../approvals/requirement-for.js';
import { mcpServerOf, type McpToolIdentity } from '../approvals/mcp-tool-name.js';
import { endReplacedToolApprovals, listRemembered, revokeRemembered, type RevokeOutcome } from './remembered-approvals.js';
import { rememberForOf } from './remembered-call.js';
import type { RememberedGrant } from '../db/remembered-grants.js';
import { presentCall, type CallPresentation } from './describe-call.js';
import { withStatedReason } from './stated-reason.js';
import { viewRequest, type RequestView } from './request-view.js';
import { isRequest, rowLike, type RequestLike } from './request.js';
import { bindingOfRow, type BindingColumns, type RequestBindingView } from './request-binding.js';
import { definitionChanges } from '../approvals/tool-definition.js';
import { defaultPolicy, definedOnly, runtimeDeps, runtimeSettingsOf, type RuntimeSettings } from './runtime-deps.js';

/** An agent's definition; the RuntimeSettings part may instead come from its host (see attach). */
export interface AgentConfig extends RuntimeSettings {
  id: string;
  name?: string;
  description?: string;
  instructions?: string;
  model: ModelInput;
  tools?: Record<string, Tool>;
  /** Sub-agents, offered to the model as tools named `agent-<key>`. */
  agents?: Record<string, Agent>;
  /** Thread memory: `true` keeps the last 20 messages. */
  memory?: boolean | MemoryOptions;
  defaultOptions?: {
    maxSteps?: number;
    requireToolApproval?: RequireToolApproval;
    autoResumeSuspendedTools?: boolean;
    /** Call settings of every model call of the agent (temperature, maxOutputTokens, headers, maxRetries, …). */
    modelSettings?: ModelSettings;
    /** Provider-specific options of every model call, e.g. `{ openai: { reasoningEffort: 'low' } }`. */
    providerOptions?: SharedV3ProviderOptions;
    /** OpenTelemetry spans for the agent's model and tool calls (off unless `isEnabled: true`). */
    telemetry?: TelemetrySettings;
  };
  hooks?: { beforeToolCall?: BeforeToolCallHook };
  /**
   * Provider keys for `provider/model` strings, checked when the agent is constructed. Without them, a
   * string model uses the AI SDK provider's own defaults (its API key variable, read when it is called).
   */
  providers?: ProviderSettings;
}

const toolKey = /^[a-zA-Z0-9_-]{1,64}$/;

/** What resuming a call that waits for approval takes (Mastra's approval resumeSchema). */
const approvalResumeData = z.object({ approved: z.boolean(), reason: z.string().optional() });

export class Agent implements AgentInternals {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly instructions: string;
  readonly model: LanguageModelV3;
  readonly subAgents: Readonly<Record<string, Agent>>;
  /** The tools given to the constructor; `tools` adds those of each tool group (see setToolGroup). */
  private readonly ownTools: Readonly<Record<string, Tool>>;
  private readonly toolGroups = new Map<string, Readonly<Record<string, Tool>>>();
  private allTools: Readonly<Record<string, Tool>>;
  private specs: LanguageModelV3FunctionTool[];
  readonly memory?: MemoryOptions;
  readonly defaultOptions: NonNullable<AgentConfig['defaultOptions']>;
  readonly callSettings?: CallSettings;
  readonly hooks: { beforeToolCall?: BeforeToolCallHook };
  private deps?: RuntimeDeps;
  /** What the agent was given about where and how it runs (see attach). */
  private settings: RuntimeSettings;

  constructor(config: AgentConfig) {
    if (!config.id || !toolKey.test(config.id)) throw new AgentError('AGENT_INVALID', `Agent id "${config.id}" must match ${toolKey}`);
    this.id = config.id;
    this.name = config.name ?? config.id;
    this.description = config.description ?? '';
    this.instructions = config.instructions ?? '';
    this.model = resolveModel(config.model, config.providers);
    const tools: Record<string, Tool> = {};
    for (const [key, tool] of Object.entries(config.tools ?? {})) {
      if (!toolKey.test(key)) throw new AgentError('AGENT_INVALID', `Tool key "${key}" must match ${toolKey}`, { agentId: this.id });
      tools[key] = tool;
    }
    const subAgents: Record<string, Agent> = {};
    for (const [key, agent] of Object.entries(config.agents ?? {})) subAgents[subAgentToolName(key)] = agent;
    for (const name of Object.keys(subAgents)) {
      if (tools[name]) throw new AgentError('AGENT_INVALID', `Tool "${name}" collides with a sub-agent`, { agentId: this.id });
    }
    this.ownTools = Object.freeze(tools);
    this.subAgents = Object.freeze(subAgents);
    this.allTools = this.ownTools;
    this.specs = this.specsOf(this.ownTools);
    if (config.memory) this.memory = config.memory === true ? { lastMessages: 20 } : config.memory;
    this.defaultOptions = config.defaultOptions ?? {};
    const callSettings = checkCallSettings(`the defaultOptions of agent ${this.id}`, this.defaultOptions.modelSettings, this.defaultOptions.providerOptions);
    if (callSettings) this.callSettings = callSettings;
    checkTelemetry(`the defaultOptions of agent ${this.id}`, this.defaultOptions.telemetry);
    this.hooks = config.hooks ?? {};
    this.settings = runtimeSettingsOf(config);
    if (this.settings.storage) this.deps = this.withMcpIdentity(runtimeDeps({ ...this.settings, storage: this.settings.storage }));
  }

  /** Every tool the model may call: the agent's own and those of its tool groups, by the name the model calls. */
  get tools(): Readonly<Record<string, Tool>> {
    return this.allTools;
  }

  /** What the model is told about the tools and sub-agents, as of now. */
  get toolSpecs(): LanguageModelV3FunctionTool[] {
    return this.specs;
  }

  /**
   * Replaces the tools of one group (the tools of one MCP server, named after it): a source
   * whose tools are known only once it is reached and may change while the agent runs. Each
   * model step sees the tools as they are when it starts. A group's tool names must be
   * `<group>__…`, so they never collide with the agent's own tools or another group's; an
   * empty group keeps its names known to the policy while its source is unreachable.
   */
  setToolGroup(group: string, tools: Record<string, Tool>): void {
    for (const name of Object.keys(tools)) {
      if (!toolKey.test(name) || !name.startsWith(`${group}__`)) {
        throw new AgentError('AGENT_INVALID', `Tool "${name}" of group "${group}" must match ${toolKey} and start with "${group}__"`, { agentId: this.id });
      }
    }
    this.toolGroups.set(group, Object.freeze({ ...tools }));
    const all: Record<string, Tool> = { ...this.ownTools };
    for (const groupTools of this.toolGroups.values()) Object.assign(all, groupTools);
    this.allTools = Object.freeze(all);
    this.specs = this.specsOf(this.allTools);
  }

  private specsOf(tools: Readonly<Record<string, Tool>>): LanguageModelV3FunctionTool[] {
    return [
      // Each with the reserved field for the model's stated reason (see stated-reason.ts).
      ...Object.entries(tools).map(([name, tool]) => ({
        type: 'function' as const,
        name,
        description: tool.description,
        inputSchema: withStatedReason(tool.inputJsonSchema ?? jsonSchemaOf(tool.inputSchema), tool),
      })),
      ...Object.entries(this.subAgents).map(([name, agent]) => ({
        type: 'function' as const,
        name,
        description: `Delegate a task to the ${agent.name} agent. ${agent.description}`.trim(),
        inputSchema: withStatedReason(jsonSchemaOf(delegationInput)),
      })),
    ];
  }

  /**
   * The MCP server and tool behind a call's name at `path` (see RuntimeDeps.mcpIdentity): the
   * tool's own when the agent has it; else, for a name under one of its tool groups (a server
   * not reached since start), the server with the rest of the name, without any annotation.
   */
  private mcpIdentityAt(toolName: string, path: readonly string[] | null): McpToolIdentity | undefined {
    const agent = path ? findAgent(this, [...path]) : this;
    if (!(agent instanceof Agent)) return undefined;
    const tool = Object.hasOwn(agent.allTools, toolName) ? agent.allTools[toolName] : undefined;
    if (tool) return tool.mcp;
    const group = mcpServerOf(toolName, agent.toolGroups.keys());
    return group ? { server: group, tool: toolName.slice(group.length + 2) } : undefined;
  }

  private withMcpIdentity(deps: RuntimeDeps): RuntimeDeps {
    deps.mcpIdentity = (toolName, path) => this.mcpIdentityAt(toolName, path);
    return deps;
  }

  /**
   * Gives the agent the runtime a host provides (the bot serving it from an
   * agents module, or createSlackBot): where its runs are kept, the policy,
   * the logger and the workspace (bot user, group resolver). What the host
   * provides wins: its database is where its Slack tables are. Returns the
   * agent, ready to run.
   */
  attach(runtime: RuntimeSettings & { storage: Database | Db }): this {
    this.settings = { ...this.settings, ...definedOnly(runtime) };
    this.deps = this.withMcpIdentity(runtimeDeps({ ...this.settings, storage: runtime.storage, keepResults: this.deps?.keepResults ?? this.settings.keepResults ?? false }));
    return this;
  }

  /**
   * From now on, keep the answer of each finished run that was on record until a front end has
   * shown it (run_results); the Slack app calls this for the agent it serves.
   */
  keepResults(): void {
    // An agent without storage runs nothing on its own, so it has no answers to keep.
    if (this.deps) this.deps.keepResults = true;
  }

  /**
   * The workspace the front end serving this agent is installed in (the Slack app calls this
   * once auth.test has answered): from now on an actor or requester whose team is given must be
   * one of its members, or of a team the policy's `allowExternalTeams` trusts.
   */
  serveWorkspace(workspace: Workspace): void {
    const served = Object.freeze({ ...workspace });
    // Kept with the settings too, so that attaching the agent again (a host's storage, a reload) keeps the rule.
    this.settings = { ...this.settings, workspace: served };
    this.runtime.workspace = served;
  }

  /**
   * Whether this actor is outside the workspace the agent serves (and not of a team the policy
   * trusts): such a person decides, answers, edits, revokes and sees nothing. Every decision and
   * answer is checked with it; a front end asks it for what it shows (an inbox, a request's arguments).
   */
  isOutsider(actor: Actor): boolean {
    return workspaceRefusal(this.runtime, actor) !== undefined;
  }

  /** The policy the agent's calls are decided under (its runtime's, or what it was given, or the default). */
  get policy(): Policy {
    return this.deps?.policy ?? this.settings.policy ?? defaultPolicy;
  }

  /** How long a run being continued may go unrenewed before another process takes it over (runLeaseMs). */
  get leaseMs(): number {
    return this.runtime.runLeaseMs;
  }

  /** The storage, policy and logger this agent's runs use. */
  get runtime(): RuntimeDeps {
    if (!this.deps) {
      throw new AgentError('NO_STORAGE', `Agent ${this.id} has no storage: pass { storage } to run it directly`, { agentId: this.id });
    }
    return this.deps;
  }

  async stream(input: UserInput, options: StreamOptions = {}): Promise<AgentStream> {
    const deps = this.runtime;
    const threadId = options.threadId ?? options.memory?.thread ?? null;
    const resourceId = options.resourceId ?? options.memory?.resource ?? null;
    const messages = toMessages(input);
    const live = liveOptions('stream options', options);
    checkCaller(options.caller);
    if (options.requesterTeamId !== undefined) await refuseOutsider(deps, options.requester ?? '', options.requesterTeamId, threadId);
    const autoResume = options.autoResumeSuspendedTools ?? this.defaultOptions.autoResumeSuspendedTools ?? false;
    if (autoResume && threadId && resourceId) {
      const resumed = await tryAutoResume(this, deps, { threadId, resourceId, messages, requester: options.requester, requesterTeamId: options.requesterTeamId, live });
      if (resumed) return resumed;
    }
    return startRun(this, await freshRun(this, deps, messages, options, { threadId, resourceId }, live));
  }

  /**
   * Runs to the end (or a pause) and reports it. A run whose first model call
   * fails has done nothing and left no record: the call rejects with that
   * ModelCallError, as it does with RunAbortedError for an aborted run. A
   * later failure resolves with `finishReason: 'error'` and `error`, since
   * what ran before it (tool calls, text) is part of the answer.
   */
  async generate(input: UserInput, options: StreamOptions = {}): Promise<GenerateResult> {
    const result = await (await this.stream(input, options)).result;
    if (hasAgentErrorCode(result.error, 'RUN_ABORTED')) throw result.error;
    if (hasAgentErrorCode(result.error, 'MODEL_CALL_FAILED') && result.error.details.step === 1 && result.error.details.runId === result.runId) throw result.error;
    return asGenerated(result);
  }

  /**
   * The decision as a union: what the Slack front end uses, since refusals are
   * normal there. `known.action` is the request's row as the caller read it
   * moments ago (the Slack click handler reads it to check the button); it
   * saves a read. The decision itself is a conditional write, so an outdated
   * row can only change which refusal is reported, never what is recorded.
   * `known.startAfter` holds the run's continuation until it settles (Slack
   * records a click's decision before acknowledging it, and the run's work
   * waits for the acknowledgement).
   */
  async decideToolCall(req: DecisionRequest & { decision: 'approve' | 'decline' }, known?: DecisionContext): Promise<Decision> {
    return decide(this, this.runtime, req, req.decision, known);
  }

  /**
   * An approver edits the arguments, then approves: validated against the tool's input schema,
   * fingerprinted again, and asked of the policy as a new request would be (see EditOutcome).
   * The run goes on (`stream`) when the editor's approval meets the quorum.
   */
  async editToolCall(req: EditRequest, known?: DecisionContext): Promise<EditOutcome> {
    return editToolCall(this, this.runtime, req, known);
  }

  /** The input schema an editor of this request fills in; undefined when it cannot be edited (see editSchemaOf). */
  editSchemaOf(action: RequestLike<RequestFacts & Pick<PendingAction, 'kind'>>): JSONSchema7 | undefined {
    return editSchemaOf(this, this.runtime, rowLike(action));
  }

  async approveToolCall(req: DecisionRequest): Promise<AgentStream> {
    return this.streamFor(await decide(this, this.runtime, req, 'approve'), req);
  }

  async declineToolCall(req: DecisionRequest): Promise<AgentStream> {
    return this.streamFor(await decide(this, this.runtime, req, 'decline'), req);
  }

  async approveToolCallGenerate(req: DecisionRequest): Promise<GenerateResult> {
    return asGenerated(await (await this.approveToolCall(req)).result);
  }

  async declineToolCallGenerate(req: DecisionRequest): Promise<GenerateResult> {
    return asGenerated(await (await this.declineToolCall(req)).result);
  }

  /**
   * Whether `actor` may answer this question or suspended call (its run's
   * requester, or an approver of its tool under the current policy); every
   * way of answering is held to it. Throws when a group lookup fails.
   */
  mayAnswer(action: RequestLike<Pick<PendingAction, 'tool_name' | 'args' | 'requester'> & { path?: string[] | null; limit_hits?: unknown }>, actor: Actor): Promise<Authorization> {
    return mayAnswer(this.runtime, rowLike(action), actor);
  }

  /**
   * Whether `actor` may approve or decline this request under the current
   * policy, as every decision is checked: a front end asks first to refuse
   * before anyone writes a reason in a form.
   */
  mayDecide(action: RequestLike<Pick<PendingAction, 'tool_name' | 'args' | 'requester' | 'policy_version'> & { path?: string[] | null; created_at?: PendingAction['created_at']; limit_hits?: unknown }>, actor: Actor, decision: 'approve' | 'decline'): Promise<DecisionVerdict> {
    return mayDecide(this.runtime, rowLike(action), actor, decision);
  }

  /**
   * What `actor` approving, declining or editing this request would come to, without deciding it
   * (see DecisionCheck): the very check decideToolCall and editToolCall make before they write, so
   * a front end that asks it before opening a form refuses exactly what the decision would.
   * `fingerprint`: of the arguments the actor saw; `reason`: the one given; `reasonToCome`: a form
   * asks for it next, so its absence is not refused yet.
   */
  checkDecision(request: RequestLike, actor: Actor, decision: 'approve' | 'decline' | 'edit', options: DecisionCheckOptions = {}): Promise<DecisionCheck> {
    return checkDecision(this, this.runtime, rowLike(request), actor, decision, options);
  }

  /**
   * Whether `actor` may see this request at all: its requester, whoever decided or voted on it,
   * or someone who may decide it under the current policy. A front end that shows a request, or
   * names one in a refusal, asks this first, and tells anyone else what it tells about an id
   * that does not exist.
   */
  maySee(action: RequestLike<SeenRequest>, actor: Actor): Promise<boolean> {
    return maySee(this, this.runtime, rowLike(action), actor);
  }

  /**
   * The open approval requests `actor` may approve and has not voted on, oldest first, `limit`
   * (1 to 500) at a time after request id `after`, with exact counts: what an inbox lists. Who may
   * approve is mayDecide's rule, evaluated in the database for the count (see waitingFor).
   */
  waitingFor(actor: Actor, page: { after?: number; limit: number }): Promise<WaitingPage> {
    return waitingFor(this, this.runtime, actor, page);
  }

  /** The request (a pending action, in any status) with this id; undefined when there is none. */
  findRequest(actionId: number): Promise<PendingAction | undefined> {
    return findAction(this.runtime.db, actionId);
  }

  /** The latest approval request of one call of a run (the run that owns the call), e.g. one blocked at its grant. */
  latestApprovalId(runId: string, toolCallId: string): Promise<number | undefined> {
    return latestApprovalId(this.runtime.db, runId, toolCallId);
  }

  /**
   * Every request stored by the pause a `tool-call-approval` or `tool-call-suspended` chunk
   * announced (a stream announces one call, as Mastra's does); undefined for a chunk reminding of
   * a call announced before. See requestsOfPause.
   */
  requestsOfPause(payload: ApprovalRequest | SuspensionRequest): readonly AnnouncedRequest[] | undefined {
    return requestsOfPause(payload);
  }

  /** The stored request behind a `tool-call-approval` or `tool-call-suspended` chunk this process announced. */
  storedRequestOf(payload: ApprovalRequest | SuspensionRequest): PendingAction | undefined {
    return storedActionOf(payload);
  }

  /** The tool a request is about, found through its delegation path (undefined for a delegation or a tool the code no longer has). */
  toolOf(request: RequestLike<Pick<RequestFacts, 'path' | 'tool_name'>>): Tool | undefined {
    const action = rowLike(request);
    return findAgent(this, [...(action.path ?? [this.id])])?.tools[action.tool_name];
  }

  /**
   * How a request reads to the people deciding it: the tool's own describe() (sub-agents' and MCP
   * tools included), else its input schema to describe the arguments from, and whether its
   * requirement (rules and the limits it went over) or the tool calls it high-risk or wants a
   * reason with each approval.
   */
  describeCall(requestOrRow: RequestLike<RequestFacts>): CallPresentation {
    const request = rowLike(requestOrRow);
    const agent = findAgent(this, [...(request.path ?? [this.id])]);
    const tool = agent && Object.hasOwn(agent.tools, request.tool_name) ? agent.tools[request.tool_name] : undefined;
    return presentCall(tool, request.tool_name, request.args, this.requirementOf(request), this.runtime.logger);
  }

  /**
   * What this request's approval is bound to besides its arguments (see bound-call.ts), checked
   * as read: the model's stated reason (its own words: show them as the agent's, escaped), the
   * tool's preview (or that it failed), the MCP tool definition it is pinned to, why it replaces
   * an approved request whose call did not run (`askedAgain`), and `toolChanged` when the tool's
   * server has changed the definition since the request was asked (approving it then asks again).
   */
  bindingOf(requestOrRow: RequestLike<Pick<RequestFacts, 'path' | 'tool_name'> & BindingColumns>): RequestBindingView {
    const request = rowLike(requestOrRow);
    const binding = bindingOfRow(request);
    const pin = binding.toolPin ? this.toolOf(request)?.definitionPin : undefined;
    if (!binding.toolPin || !pin || pin.digest === binding.toolPin.digest) return binding;
    return { ...binding, toolChanged: definitionChanges(binding.toolPin.definition, pin.definition) };
  }

  /** The user-group lookup the approver rules use (cached per workspace), for a front end that lists who may decide. */
  get groupResolver(): GroupResolver | undefined {
    return this.runtime.resolveGroupMembers;
  }

  /**
   * Everything a front end shows about one request (its tool, requirement with the limits it went
   * over, who may decide, description, edit schema, remember option, binding, unreachable quorum),
   * worked out from one evaluation of the policy: a card asks this once per draw. `now` decides
   * escalation and freezes (default: the runtime's clock).
   */
  viewRequest(request: RequestLike, options: { now?: Date } = {}): RequestView {
    const sources = { root: this, deps: this.runtime, bindingOf: (row: PendingAction) => this.bindingOf(row) };
    // A Request handed in is the view's own; a row is read into one (viewRequest's default).
    return viewRequest(sources, rowLike(request), options.now, isRequest(request) ? request : undefined);
  }

  /** What approving this request takes under the current policy, the limits it went over included (approvers, quorum, risk, …). */
  requirementOf(request: RequestLike<RequestFacts>): Requirement {
    return requirementOfRequest(this.runtime.policy, rowLike(request), this.runtime.mcpIdentity, this.runtime.now());
  }

  /**
   * How long approving this request may be remembered ("Approve and allow for …"), or undefined
   * when it may not be: the policy's rememberFor, never for a high-risk call or one nobody requested.
   */
  rememberForOf(action: RequestFacts & Pick<PendingAction, 'requester'>): number | undefined {
    return rememberForOf(this.requirementOf(action), this.toolOf(action), action.args, action.requester);
  }

  /** Live remembered approvals of this agent; with `viewer`, those they created, requested or may approve. */
  listRememberedGrants(viewer?: Actor): Promise<RememberedGrant[]> {
    return listRemembered(this, this.runtime, viewer);
  }

  /** Revokes a remembered approval, if `actor` created it, requested it or may approve its tool now. */
  revokeRememberedGrant(id: number, actor: Actor): Promise<RevokeOutcome> {
    return revokeRemembered(this, this.runtime, id, actor);
  }

  /**
   * A tool source's new declaration of its tools (an MCP server listed them: `current`, each tool's
   * model-facing name and definition digest, its tools named `<prefix>…` at the agent `path`):
   * remembered approvals given for another definition of one of them, or for a tool it dropped, end
   * (audited `remembered-revoked`, reason given). attachMcpServers calls it on every change.
   */
  endReplacedToolApprovals(replaced: { path: readonly string[]; prefix: string; current: ReadonlyArray<{ toolName: string; digest: string }>; reason: string }): Promise<RememberedGrant[]> {
    return endReplacedToolApprovals(this, this.runtime, replaced);
  }

  /**
   * Cancels every pending request of these top-level runs and stops them, in one
   * statement (a decision at the same moment either comes first or finds its
   * request cancelled); with memory, the thread remembers the calls as cancelled,
   * by whom and why (see cancel-runs.ts). Returns the ids of the requests cancelled.
   */
  cancelRuns(rootRunIds: string[], actor: string, reason: string): Promise<number[]> {
    return cancelRuns(this.runtime, rootRunIds, actor, reason);
  }

  /**
   * Cancels one pending request nobody can act on (its card could not be
   * shown) and continues its run, which hears the reason as a denied result.
   * Undefined when the request was no longer pending.
   */
  async cancelRequest(actionId: number, reason: string): Promise<{ action: PendingAction; stream: AgentStream } | undefined> {
    const deps = this.runtime;
    const closed = await closeAction(deps.db, { actionId, status: 'cancelled', reason });
    return closed ? { action: closed, stream: startContinuation(this, deps, closed.run_id, closed.root_run_id) } : undefined;
  }

  /**
   * Continues a paused call with `resumeData`, as Mastra's resumeStream does: a suspended tool
   * gets it as its answer (checked against its resumeSchema); a call waiting for approval takes
   * `{ approved: true | false, reason? }` as the decision (approveToolCall and declineToolCall
   * are this with `approved` set). `startAfter`: as for decideToolCall, the continuation waits
   * for it. The call settings, abort signal and telemetry given here hold for the continued
   * top-level run, over what its stream() call stored (all but headers).
   */
  async resumeStream(resumeData: unknown, req: ResumeRequest, options: ContinuationOptions & { startAfter?: PromiseLike<unknown> } = {}): Promise<AgentStream> {
    const live = liveOptions('resumeStream options', options);
    const deps = this.runtime;
    const found = await locateAction(this, deps, req, ['approval', 'suspension']);
    if ('outcome' in found || found.kind !== 'approval') return resumeSuspended(this, deps, resumeData, req, options.startAfter, live, found);
    const verdict = approvalResumeData.safeParse(resumeData);
    if (!verdict.success) {
      throw new ResumeValidationError(found.run_id, found.tool_call_id, ['this call waits for approval: resume it with { approved: true | false, reason? }']);
    }
    const decision: DecisionRequest = { ...req, ...(verdict.data.reason !== undefined ? { reason: verdict.data.reason } : {}) };
    return this.streamFor(await decide(this, deps, decision, verdict.data.approved ? 'approve' : 'decline', { action: found, ...(options.startAfter ? { startAfter: options.startAfter } : {}) }), decision);
  }

  async resumeGenerate(resumeData: unknown, req: ResumeRequest, options: ContinuationOptions = {}): Promise<GenerateResult> {
    const result = await (await this.resumeStream(resumeData, req, options)).result;
    if (hasAgentErrorCode(result.error, 'RUN_ABORTED')) throw result.error;
    return asGenerated(result);
  }

  async listSuspendedRuns(filter: { threadId?: string; resourceId?: string } = {}): Promise<{ runs: SuspendedRun[] }> {
    return { runs: await listSuspendedRuns(this.runtime.db, this.id, filter) };
  }

  /**
   * Approve or decline by thread when the run id is not at hand (after a
   * restart, say). Several pending calls and no toolCallId is an error, never a guess.
   */
  async sendToolApproval(req: {
    runId?: string;
    threadId?: string;
    resourceId?: string;
    toolCallId?: string;
    approved: boolean;
    reason?: string;
    actor?: DecisionRequest['actor'];
  }): Promise<AgentStream> {
    let runId = req.runId;
    let toolCallId = req.toolCallId;
    if (!runId) {
      const { runs } = await this.listSuspendedRuns({
        ...(req.threadId ? { threadId: req.threadId } : {}),
        ...(req.resourceId ? { resourceId: req.resourceId } : {}),
      });
      const matches = runs.flatMap((r) =>
        r.toolCalls
          .filter((c) => c.requiresApproval && (!toolCallId || c.toolCallId === toolCallId))
          .map((c) => ({ runId: r.runId, toolCallId: c.toolCallId })),
      );
      if (matches.length === 0) throw new ToolCallNotPendingError('not-found', req.threadId ?? '(any thread)', toolCallId);
      if (matches.length > 1) throw new AmbiguousToolCallError(matches.map((m) => m.runId), matches.map((m) => m.toolCallId));
      runId = matches[0]!.runId;
      toolCallId = matches[0]!.toolCallId;
    }
    const decision: DecisionRequest = {
      runId,
      ...(toolCallId ? { toolCallId } : {}),
      ...(req.reason ? { reason: req.reason } : {}),
      ...(req.actor ? { actor: req.actor } : {}),
    };
    return req.approved ? this.approveToolCall(decision) : this.declineToolCall(decision);
  }

  /**
   * Expires up to `limit` approval requests of this agent's runs that are past their time; safe
   * on many instances (each request is expired by one). Their runs continue as run slots free up
   * (maxConcurrentRuns), after the decisions waiting for one. To drain a backlog, call it again
   * while it returns `limit` requests (takeWhileFull).
   */
  async sweepExpired(limit = 100, options?: SweepExpiredOptions) {
    return sweepExpired(this, this.runtime, limit, options);
  }

  /**
   * Takes over runs whose process stopped while continuing them (their lease
   * was not renewed within `runLeaseMs`) and continues them here: at most
   * `limit`, and no more than maxConcurrentRuns less the runs this process took
   * over and has not finished (they wait for a run slot ahead of the sweep's
   * backlog, their leases renewed). What was
   * approved or answered before the stop is not run again: the model is told
   * it was interrupted. The Slack app calls this with its expiry sweep.
   */
  async recoverStaleRuns(limit = 100) {
    return recoverStaleRuns(this, this.runtime, limit);
  }

  private async streamFor(decision: Decision, req: DecisionRequest): Promise<AgentStream> {
    // The run as the caller named it, for errors; a request addressed by its actionId may name none.
    const runId = req.runId ?? ('action' in decision ? decision.action.root_run_id : '');
    switch (decision.outcome) {
      case 'approved':
      case 'declined':
      case 'policy-changed':
      case 'expired':
        if (decision.stream) return decision.stream;
        throw new ToolCallNotPendingError(decision.outcome === 'expired' ? 'expired' : 'already-decided', runId, req.toolCallId);
      case 'approval-recorded': {
        const sink = new StreamSink(decision.action.root_run_id);
        sink.finishWaiting([
          {
            kind: 'approval',
            toolCallId: decision.action.tool_call_id,
            toolName: decision.action.tool_name,
            args: decision.action.args,
            path: decision.action.path ?? [],
            runId: decision.action.run_id,
          },
        ]);
        return sink.toStream();
      }
      case 'not-found':
        if (!decision.runExists) throw new SnapshotNotFoundError(runId);
        throw new ToolCallNotPendingError('not-found', runId, req.toolCallId);
      case 'not-allowed':
        throw new ToolCallNotPendingError('not-allowed', runId, decision.action.tool_call_id, decision.message);
      case 'already-decided':
      {
        // Same error type whether or not the run has ended yet (a race loser must not see either at random);
        // the message says when the run itself is gone.
        const ended = !(await findSnapshot(this.runtime.db, decision.action.run_id));
        throw new ToolCallNotPendingError(
          'already-decided',
          runId,
          decision.action.tool_call_id,
          `status ${decision.action.status}${ended ? '; the run has finished: snapshot not found' : ''}`,
        );
      }
      case 'fingerprint-mismatch':
        throw new ToolCallNotPendingError('fingerprint-mismatch', runId, decision.action.tool_call_id);
      default:
        return unreachable(decision, 'decision outcome');
    }
  }
}


/**
 * A run asked for from outside the workspace starts nothing: the refusal is audited under a run
 * id that never runs (the audit trail is keyed by run), then OutsideWorkspaceError is thrown.
 */
async function refuseOutsider(deps: RuntimeDeps, userId: string, teamId: string, threadId: string | null): Promise<void> {
  if (!workspaceRefusal(deps, { userId, teamId })) return;
  const runId = randomUUID();
  deps.logger.warn({ runId, requester: userId, teamId }, 'run refused: requester is not a member of this workspace');
  try {
    await appendAudit(deps.db, [{ event: 'refused', runId, actor: userId, detail: { decision: 'run', why: 'outside-workspace', teamId, ...(threadId ? { threadId } : {}) } }]);
  } catch (error) {
    deps.logger.warn({ err: error, runId }, 'refused run could not be audited');
  }
  throw new OutsideWorkspaceError(runId, userId, teamId);
}

/** A caller label goes on cards and audit events: short, one line, and text. */
function checkCaller(caller: unknown): void {
  if (caller === undefined) return;
  if (typeof caller !== 'string' || caller.trim().length === 0 || caller.length > 100 || /[\u0000-\u001f\u007f]/.test(caller)) {
    throw new AgentError('OPTIONS_INVALID', `stream options: caller must be a label of 1 to 100 characters on one line (e.g. "nightly-billing"), got ${JSON.stringify(caller)}`);
  }
}

function jsonSchemaOf(schema: z.ZodType): LanguageModelV3FunctionTool['inputSchema'] {
  return z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as LanguageModelV3FunctionTool['inputSchema'];
}

function toMessages(input: UserInput): LanguageModelV3Message[] {
  if (typeof input === 'string') return [{ role: 'user', content: [{ type: 'text', text: input }] }];
  return input.map((m) =>
    m.role === 'user'
      ? { role: 'user' as const, content: [{ type: 'text' as const, text: m.content }] }
      : { role: 'assistant' as const, content: [{ type: 'text' as const, text: m.content }] },
  );
}
