import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { fingerprint } from '../approvals/fingerprint.js';
import { requirementFor } from '../approvals/requirement-for.js';
import type { AuditInput } from '../approvals/audit.js';
import { applyHook } from './before-tool-call.js';
import { callTarget, parseCallInput, type CallTarget } from './call-target.js';
import { executeTool, type ExecutionOutcome } from './execute-tool.js';
import type { PlannedAction, SuspensionPlan } from './plan.js';
import { requiresApproval } from './requires-approval.js';
import { checkpointStep, type RunState } from './run-state.js';
import type { Emitter } from './emitter.js';
import { runDelegation } from './delegate.js';

export interface ToolCallInput {
  toolCallId: string;
  toolName: string;
  input: string;
}

/** What one fresh tool call of a step turned into. */
export type CallOutcome =
  | { kind: 'result'; output: LanguageModelV3ToolResultOutput }
  | { kind: 'pending'; plan: SuspensionPlan };

/**
 * Routes one tool call: unknown or invalid → tool error; needs approval →
 * planned approval; otherwise run it (a tool may suspend itself; a sub-agent's
 * own pauses bubble up into this run's plan). The call's name throughout is
 * the one the model used, so chunks, policy, hooks and the approval function
 * all see the same name.
 */
export async function planToolCall(run: RunState, call: ToolCallInput, out: Emitter): Promise<CallOutcome> {
  const target = callTarget(run.agent, call.toolName);
  if (!target) return errorResult(call, `Tool ${call.toolName} not found`, out);
  const parsed = parseCallInput(target, call.toolName, call.input);
  if (!parsed.ok) return errorResult(call, parsed.message, out);
  const args = parsed.args;
  out.toolCall(call.toolCallId, call.toolName, args);

  const gate = await approvalGate(run, target, call.toolName, args);
  if (gate.required) {
    return { kind: 'pending', plan: { snapshots: [], actions: [approvalAction(run, call, args, gate.requirement)] } };
  }
  return runUngated(run, target, call, args, out);
}

function errorResult(call: { toolCallId: string; toolName: string }, message: string, out: Emitter): CallOutcome {
  out.toolResult(call.toolCallId, call.toolName, message, true);
  return { kind: 'result', output: { type: 'error-text', value: message } };
}

/**
 * The approval gate for one call under the current policy: what it requires,
 * and whether it applies. Every call passes it, a delegation to a sub-agent
 * included, with the rules of every agent above this one.
 */
export async function approvalGate(run: RunState, target: CallTarget, toolName: string, args: unknown) {
  const requirement = requirementFor(run.deps.policy, toolName, args);
  const required = await requiresApproval(run.approvalRules, {
    toolName,
    args,
    path: run.path,
    requestContext: run.requestContext,
    toolSetting: target.kind === 'tool' ? target.tool.requireApproval : undefined,
    policyRequires: requirement.requireApproval,
  });
  return { requirement, required };
}

export function approvalAction(
  run: RunState,
  call: { toolCallId: string; toolName: string },
  args: unknown,
  requirement: ReturnType<typeof requirementFor>,
): PlannedAction {
  const fp = fingerprint(call.toolName, args);
  const requester = run.options.requester ?? null;
  return {
    write: {
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
    },
    announce: {
      kind: 'approval',
      payload: {
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        args,
        path: run.path,
        runId: run.runId,
        fingerprint: fp,
        policyVersion: requirement.policyVersion,
        ...(requester ? { requester } : {}),
        approvers: requirement.approvers,
        quorum: requirement.quorum,
      },
    },
  };
}

/**
 * Runs a call nobody had to approve: the user's hook first (it may block or
 * rewrite it), then `started` is written to the audit log (with the step's
 * checkpoint when there is one to write) before the call runs, so the trail
 * and a process taking the run over both know it may have run.
 */
export async function runUngated(
  run: RunState,
  target: CallTarget,
  call: { toolCallId: string; toolName: string },
  args: unknown,
  out: Emitter,
): Promise<CallOutcome> {
  const hooked = await applyHook(run, { ...call, args });
  if (!hooked.ok) {
    run.audit.push(callEvent(run, call, 'blocked', { reason: hooked.reason }));
    out.toolResult(call.toolCallId, call.toolName, hooked.value, hooked.isError);
    return { kind: 'result', output: hooked.output };
  }
  run.audit.push(callEvent(run, call, 'started'));
  await checkpointStep(run);
  return runCall(run, target, call, hooked.args, out);
}

/** An audit event about one call of this run (no approval behind it: no fingerprint or policy version). */
export function callEvent(
  run: RunState,
  call: { toolCallId: string; toolName: string },
  event: AuditInput['event'],
  detail: Record<string, unknown> | null = null,
): AuditInput {
  return { event, runId: run.runId, toolCallId: call.toolCallId, toolName: call.toolName, detail };
}

/**
 * Executes a call whose way is clear (its `started` or `consumed` event is on
 * record): a tool, which may suspend itself, or a sub-agent. `executed` or
 * `failed` rides on the run's next write.
 */
export async function runCall(
  run: RunState,
  target: CallTarget,
  call: { toolCallId: string; toolName: string },
  args: unknown,
  out: Emitter,
  audit: Pick<AuditInput, 'fingerprint' | 'policyVersion'> = {},
): Promise<CallOutcome> {
  let outcome: CallOutcome;
  let error: string | undefined;
  if (target.kind === 'agent') {
    outcome = await runDelegation(run, target.agent, call, args as { prompt: string }, out);
    if (outcome.kind === 'result' && outcome.output.type === 'error-text') error = outcome.output.value;
  } else {
    const executed = await executeTool(run, target.tool, { ...call, args });
    if (executed.kind === 'result' && executed.isError) error = String(executed.value);
    outcome = settle(run, call, args, executed, out);
  }
  // A delegation or tool that paused has not finished: its end is recorded when it does.
  if (outcome.kind === 'result') {
    run.audit.push({ ...callEvent(run, call, error === undefined ? 'executed' : 'failed', error === undefined ? null : { error }), ...audit });
  }
  return outcome;
}

/** Turns an execution outcome into a result or a planned suspension. */
export function settle(
  run: RunState,
  call: { toolCallId: string; toolName: string },
  args: unknown,
  outcome: ExecutionOutcome,
  out: Emitter,
): CallOutcome {
  if (outcome.kind === 'result') {
    out.toolResult(call.toolCallId, call.toolName, outcome.value, outcome.isError);
    return { kind: 'result', output: outcome.output };
  }
  return {
    kind: 'pending',
    plan: {
      snapshots: [],
      actions: [
        {
          write: {
            run_id: run.runId,
            root_run_id: run.rootRunId,
            tool_call_id: call.toolCallId,
            tool_name: call.toolName,
            kind: 'suspension',
            args,
            fingerprint: null,
            suspend_payload: outcome.payload,
            path: run.path,
            requester: run.options.requester ?? null,
            policy_version: null,
            quorum: 1,
            expires_in_ms: null,
          },
          announce: {
            kind: 'suspension',
            payload: {
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              args,
              suspendPayload: outcome.payload,
              path: run.path,
              runId: run.runId,
            },
          },
        },
      ],
    },
  };
}
