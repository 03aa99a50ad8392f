import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { fingerprint } from '../approvals/fingerprint.js';
import { requirementFor } from '../approvals/requirement-for.js';
import { errorOutput, executeTool, type ExecutionOutcome } from './execute-tool.js';
import type { PlannedAction, SuspensionPlan } from './plan.js';
import { requiresApproval } from './requires-approval.js';
import { checkpointStep, type RunState } from './run-state.js';
import type { Tool } from './tool.js';
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

/** Parses and validates model input; a bad input is the model's to fix, so it goes back as a tool error. */
function parseInput(tool: Tool, raw: string): { ok: true; args: unknown } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return { ok: false, message: `Invalid input for tool ${tool.id}: not valid JSON` };
  }
  const checked = tool.inputSchema.safeParse(json);
  if (!checked.success) {
    const issues = checked.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
    return { ok: false, message: `Invalid input for tool ${tool.id}: ${issues}` };
  }
  return { ok: true, args: checked.data };
}

/**
 * Routes one tool call: unknown or invalid → tool error; needs approval →
 * planned approval; otherwise run it (it may suspend itself); sub-agent →
 * delegated run whose own pauses bubble up into this run's plan.
 */
export async function planToolCall(run: RunState, call: ToolCallInput, out: Emitter): Promise<CallOutcome> {
  const subAgent = run.agent.subAgents[call.toolName];
  const tool = run.agent.tools[call.toolName];
  if (!tool && !subAgent) {
    out.toolResult(call.toolCallId, call.toolName, `Tool ${call.toolName} not found`, true);
    return { kind: 'result', output: { type: 'error-text', value: `Tool ${call.toolName} not found` } };
  }
  if (subAgent) {
    await checkpointStep(run);
    return runDelegation(run, subAgent, call, out);
  }

  const parsed = parseInput(tool!, call.input);
  if (!parsed.ok) {
    out.toolResult(call.toolCallId, call.toolName, parsed.message, true);
    return { kind: 'result', output: { type: 'error-text', value: parsed.message } };
  }
  const args = parsed.args;
  out.toolCall(call.toolCallId, call.toolName, args);

  const gate = await approvalGate(run, tool!, call.toolName, args);
  if (gate.required) {
    return { kind: 'pending', plan: { snapshots: [], actions: [approvalAction(run, call, args, gate.requirement)] } };
  }
  await checkpointStep(run);
  const outcome = await runUngated(run, tool!, call.toolCallId, args);
  return settle(run, call, args, outcome, out);
}

/** The approval gate for one call under the current policy: what it requires, and whether it applies. */
export async function approvalGate(run: RunState, tool: Tool, toolName: string, args: unknown) {
  const requirement = requirementFor(run.deps.policy, toolName, args);
  const rule = run.requireToolApproval ?? run.options.requireToolApproval ?? run.agent.defaultOptions.requireToolApproval;
  return { requirement, required: await requiresApproval(tool, args, rule, requirement.requireApproval, run.requestContext) };
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

/** Runs the user's hook, then the tool; a hook may block or rewrite the call. */
export async function runUngated(
  run: RunState,
  tool: Tool,
  toolCallId: string,
  args: unknown,
  resumeData?: { value: unknown },
): Promise<ExecutionOutcome> {
  const hooked = await applyHook(run, tool.id, toolCallId, args);
  if (!hooked.ok) return errorOutput(hooked.message);
  return executeTool(run, tool, { toolCallId, args: hooked.args }, resumeData);
}

export async function applyHook(
  run: RunState,
  toolName: string,
  toolCallId: string,
  args: unknown,
): Promise<{ ok: true; args: unknown } | { ok: false; message: string }> {
  const hook = run.agent.hooks.beforeToolCall;
  if (!hook) return { ok: true, args };
  try {
    const verdict = await hook({ toolName, toolCallId, runId: run.runId, args, requestContext: run.requestContext });
    if (verdict && typeof verdict.block === 'string') return { ok: false, message: `Tool call blocked: ${verdict.block}` };
    return { ok: true, args: verdict && 'args' in verdict ? verdict.args : args };
  } catch (error) {
    run.log.warn({ err: error, toolCallId }, 'beforeToolCall hook threw; call blocked');
    return { ok: false, message: `Tool call blocked: beforeToolCall hook failed` };
  }
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
