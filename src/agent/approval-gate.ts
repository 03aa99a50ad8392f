import type { RequireToolApproval, RequireToolApprovalContext } from './api-types.js';
import type { CallTarget, PlannedAction, RunState, AgentInternals } from './run-model.js';
import { fingerprint } from '../approvals/fingerprint.js';
import { requirementFor, type Requirement } from '../approvals/requirement-for.js';
import { callVerdict, type CallVerdict } from '../approvals/call-verdict.js';
import { countLimits } from './count-limits.js';
import type { RememberedUnused } from '../db/remembered-grants.js';
import type { Tool } from './tool.js';
import type { PendingWrite } from '../db/run-snapshots.js';
import { announcedAs } from './run-state.js';
import { compareShadow } from './shadow-policy.js';

/**
 * The approval gate for one call under the current policy: what it requires, and whether it
 * runs, asks or is denied (callVerdict). Every call passes it, a delegation to a sub-agent
 * included, with the rules of every agent above this one. A denied call's code rules (the tool's
 * requireApproval, requireToolApproval functions) are not asked: nothing they say could change it.
 */
export async function approvalGate(run: RunState, target: CallTarget, toolName: string, args: unknown, toolCallId: string): Promise<CallVerdict> {
  const mcp = target.kind === 'tool' ? target.tool.mcp : undefined;
  const at = run.deps.now();
  // Only a tool whose entry has cumulative limits spends a statement here (count-limits.ts).
  const limits = await countLimits(run, toolName, toolCallId, args, mcp);
  const requirement = requirementFor(run.deps.policy, toolName, args, mcp, limits.hits, { at });
  // What code asks (the tool's own requireApproval, requireToolApproval rules): asked at most once per call.
  let code: Promise<boolean> | undefined;
  const codeRequires = () =>
    (code ??= requiresApproval(run.approvalRules, {
      toolName,
      args,
      path: run.path,
      requestContext: run.requestContext,
      toolSetting: target.kind === 'tool' ? target.tool.requireApproval : undefined,
      policyRequires: false,
    }));
  const requester = run.options.requester;
  const verdict = requirement.deny
    ? callVerdict(run.deps.policy, requirement, { required: false, requester })
    : callVerdict(run.deps.policy, requirement, { required: requirement.requireApproval || (await codeRequires()), requester });
  if (run.deps.shadowPolicy) await compareShadow(run, run.deps.shadowPolicy, { toolCallId, toolName, args, mcp, at, hits: limits.shadowHits }, verdict, codeRequires);
  return verdict;
}

export function approvalAction(
  run: RunState,
  call: { toolCallId: string; toolName: string },
  args: unknown,
  requirement: Requirement,
  /** A remembered approval matched the call but does not cover it now: kept with the request, for its card. */
  rememberedUnused?: RememberedUnused,
): PlannedAction {
  const fp = fingerprint(call.toolName, args);
  const requester = run.options.requester ?? null;
  const caller = run.options.caller;
  // Built field by field, not spread: this runs for every call that asks.
  const write: PendingWrite = {
    run_id: run.runId,
    root_run_id: run.rootRunId,
    tool_call_id: call.toolCallId,
    tool_name: call.toolName,
    kind: 'approval',
    args,
    fingerprint: fp,
    suspend_payload: null,
    path: run.path,
    requester,
    policy_version: requirement.policyVersion,
    quorum: requirement.quorum,
    expires_in_ms: requirement.expiresInMs,
  };
  if (requirement.limitHits) write.limit_hits = requirement.limitHits;
  if (rememberedUnused) write.remembered_unused = rememberedUnused;
  if (caller) write.caller = caller;
  const payload: ApprovalAnnouncement = announcedAs(run.top, { toolCallId: call.toolCallId, toolName: call.toolName, args }, 'approval') as ApprovalAnnouncement;
  payload.path = run.path;
  payload.runId = run.runId;
  payload.fingerprint = fp;
  payload.policyVersion = requirement.policyVersion;
  if (requester) payload.requester = requester;
  payload.approvers = requirement.approvers;
  payload.quorum = requirement.quorum;
  if (requirement.limitHits) payload.limitHits = requirement.limitHits;
  if (rememberedUnused) payload.rememberedUnused = rememberedUnused;
  if (caller) payload.caller = caller;
  if (requirement.freezes) payload.freezes = requirement.freezes;
  return { write, announce: { kind: 'approval', payload } };
}

type ApprovalAnnouncement = Extract<NonNullable<PlannedAction['announce']>, { kind: 'approval' }>['payload'];

/**
 * The approval rules that hold for calls made by the last agent of `lineage`
 * (the top-level agent first): the request's own rule, or else the top-level
 * agent's default, then the default of every sub-agent on the way down. A
 * supervisor's rule therefore reaches its sub-agents' calls at any depth, and
 * a sub-agent's own default still holds for what it calls.
 */
export function approvalRulesFor(
  lineage: readonly AgentInternals[],
  requestRule: RequireToolApproval | undefined,
): RequireToolApproval[] {
  const rules = [
    requestRule ?? lineage[0]?.defaultOptions.requireToolApproval,
    ...lineage.slice(1).map((agent) => agent.defaultOptions.requireToolApproval),
  ];
  return rules.filter((rule): rule is RequireToolApproval => rule !== undefined);
}

interface ApprovalQuestion {
  toolName: string;
  args: unknown;
  path: string[];
  requestContext: Map<string, unknown>;
  /** The tool's own `requireApproval`, when it has one (a sub-agent has none). */
  toolSetting: Tool['requireApproval'];
  /** What the approval policy says for this call. */
  policyRequires: boolean;
}

/**
 * The approval gate's precedence, Mastra's, with the policy on top:
 * 1. the policy can only add approval (ops can tighten, never loosen, what code asks);
 * 2. a tool's own `requireApproval` function is asked for each call and decides alone (it
 *    overrides every request or agent rule, as in Mastra);
 * 3. otherwise the call pauses when a rule (request, supervisor or agent default) is `true` or
 *    a function rule asks, or the tool's own `requireApproval` is `true`.
 * A function asks with anything but `false`, or by throwing (fail closed; Mastra asks only on a truthy answer).
 */
async function requiresApproval(rules: readonly RequireToolApproval[], question: ApprovalQuestion): Promise<boolean> {
  if (question.policyRequires) return true;
  const requestContext = Object.fromEntries(question.requestContext);
  const own = question.toolSetting;
  if (typeof own === 'function') return asks(() => own(question.args, { args: question.args, requestContext }));
  if (rules.some((rule) => rule === true)) return true;
  const context: RequireToolApprovalContext = {
    toolName: question.toolName,
    args: question.args,
    requestContext,
    path: question.path,
  };
  for (const rule of rules) {
    if (typeof rule === 'function' && (await asks(() => rule(context)))) return true;
  }
  return own === true;
}

/** A rule's verdict: anything but `false` asks for approval, and so does a rule that throws (fail closed). */
async function asks(rule: () => unknown): Promise<boolean> {
  try {
    return (await rule()) !== false;
  } catch {
    return true;
  }
}
