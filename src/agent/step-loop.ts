import type { Usage } from './api-types.js';
import type { CallTarget, ToolCallInput, AgentInternals, CallOutcome, RunOutcome, RunState, SuspensionPlan } from './run-model.js';
import { approvalAction, approvalGate } from './approval-gate.js';
import { childRun, pushToolResults, delegationInput, snapshotWrite } from './run-state.js';
import { settle, executeTool } from './execute-tool.js';
import { addUsage, paragraphs, quietEmitter, type Emitter } from './stream.js';
import { LeaseLostError, hasAgentErrorCode } from './errors.js';
import { errorMessage } from '../error-message.js';
import type { LanguageModelV3Message } from '@ai-sdk/provider';
import { callModel } from './call-model.js';
import { checkLease, checkpointStep } from './run-lease.js';
import type { AuditInput } from '../db/audit.js';
import { applyHook } from './before-tool-call.js';
import { useRemembered } from './remembered-call.js';
import { hasStatedReason, offersStatedReason, takeStatedReason } from './stated-reason.js';
import { bindRequest, hasBinding, reasonOnly, withBinding } from './bound-call.js';
import { refuseByPolicy } from './denied-call.js';
import { requirementFor } from '../approvals/requirement-for.js';

/** The target of `toolName` (the name the model called: a key of `tools`, or `agent-<key>`). */
export function callTarget(agent: AgentInternals, toolName: string): CallTarget | undefined {
  const subAgent = Object.hasOwn(agent.subAgents, toolName) ? agent.subAgents[toolName] : undefined;
  if (subAgent) return { kind: 'agent', agent: subAgent };
  const tool = Object.hasOwn(agent.tools, toolName) ? agent.tools[toolName] : undefined;
  return tool ? { kind: 'tool', tool } : undefined;
}

/** `statedReason`: what the model said it makes the call for (see stated-reason.ts), when it said something. */
type ParsedInput = { ok: true; args: unknown; statedReason?: string } | { ok: false; message: string };

/**
 * Validates a call's input against its target's schema: a tool's inputSchema,
 * or `{ prompt }` for a delegation. `raw` is the model's JSON text, or a value
 * already parsed (as a snapshot holds it). A bad input is the model's to fix,
 * so it goes back to it as a tool error naming the tool as the model called it.
 * The model's stated reason is taken out first, where the tool offers it.
 */
export function parseCallInput(target: CallTarget, toolName: string, raw: unknown): ParsedInput {
  let json: unknown = raw;
  if (typeof raw === 'string') {
    try {
      json = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, message: `Invalid input for tool ${toolName}: not valid JSON` };
    }
  }
  if (hasStatedReason(json) && offersStatedReason(target.kind === 'tool' ? target.tool : undefined)) {
    const taken = takeStatedReason(json);
    if ('invalid' in taken) return { ok: false, message: `Invalid input for tool ${toolName}: ${taken.invalid}` };
    const parsed = checkCallInput(target, toolName, taken.input);
    return parsed.ok && taken.statedReason !== undefined ? { ...parsed, statedReason: taken.statedReason } : parsed;
  }
  return checkCallInput(target, toolName, json);
}

function checkCallInput(target: CallTarget, toolName: string, json: unknown): ParsedInput {
  if (target.kind === 'agent') {
    const checked = delegationInput.safeParse(json);
    return checked.success ? { ok: true, args: checked.data } : { ok: false, message: `Invalid input for ${toolName}: expected { prompt: string }` };
  }
  const checked = target.tool.inputSchema.safeParse(json);
  if (!checked.success) {
    const issues = checked.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
    return { ok: false, message: `Invalid input for tool ${toolName}: ${issues}` };
  }
  return { ok: true, args: checked.data };
}

/** What the caller's model is told when the sub-agent behind `toolName` fails, as a failed tool's caller is. */
export function delegationFailure(toolName: string, message: string): string {
  return `Delegation to ${toolName} failed: ${message}`;
}

/**
 * Runs a sub-agent inside its parent's step. If the sub-agent pauses, its plan
 * (snapshot and waiting calls, with the inner tool and the delegation path) is
 * folded into the parent's, and the parent waits on it with a `delegation` row.
 */
async function runDelegation(
  run: RunState,
  agent: AgentInternals,
  call: { toolCallId: string; toolName: string },
  args: { prompt: string },
  out: Emitter,
): Promise<CallOutcome> {
  const child = childRun(run, agent, call, args);
  let outcome: RunOutcome;
  try {
    // Quiet, but a call run under a remembered approval is still told where people look.
    outcome = await runSteps(child, { ...quietEmitter, remembered: (call) => out.remembered(call) });
  } catch (error) {
    // A lost lease or an abort ends the whole tree here; anything else is this call's failure, as a tool's would be.
    if (error instanceof LeaseLostError || hasAgentErrorCode(error, 'RUN_ABORTED')) throw error;
    child.log.error({ err: error }, 'sub-agent failed; its caller is told');
    const message = delegationFailure(call.toolName, errorMessage(error));
    out.toolResult(call.toolCallId, call.toolName, message, true);
    return { kind: 'result', output: { type: 'error-text', value: message } };
  }
  if (outcome.kind === 'finished') {
    out.toolResult(call.toolCallId, call.toolName, { text: outcome.text }, false);
    return { kind: 'result', output: { type: 'json', value: { text: outcome.text } } };
  }
  outcome.plan.actions.push({
    write: {
      run_id: run.runId,
      root_run_id: run.rootRunId,
      tool_call_id: call.toolCallId,
      tool_name: call.toolName,
      kind: 'delegation',
      args,
      fingerprint: null,
      suspend_payload: { runId: child.runId },
      path: run.path,
      requester: run.options.requester ?? null,
      policy_version: null,
      quorum: 1,
      expires_in_ms: null,
    },
  });
  return { kind: 'pending', plan: outcome.plan };
}

/**
 * The step loop: call the model, route each tool call, and either continue
 * with the results or stop with a plan of what the run now waits on.
 */
export async function runSteps(run: RunState, out: Emitter): Promise<RunOutcome> {
  // The text as the model wrote it, every step's run together (Mastra's); the answer a front end
  // keeps has each step's text as its own paragraph, as the Slack front end shows a stream.
  let text = '';
  let answer = '';
  while (run.step < run.options.maxSteps) {
    const prompt: LanguageModelV3Message[] = [
      ...(run.agent.instructions ? [{ role: 'system' as const, content: run.agent.instructions }] : []),
      ...run.history,
      ...run.messages,
    ];
    await checkLease(run);
    const step = await callModel(
      run.agent.model,
      prompt,
      run.agent.toolSpecs,
      (delta) => {
        text += delta;
        out.text(delta);
      },
      { runId: run.runId, agentId: run.agent.id, step: run.step + 1, settings: run.settings, abortSignal: run.live?.abortSignal, telemetry: run.telemetry },
    );
    answer = paragraphs(answer, step.text);
    run.step += 1;
    const usage = step.usage ? addUsage(undefined, step.usage) : undefined;
    if (usage) {
      run.usage = storedTokens(addUsage(run.usage, usage));
      out.tokens(usage);
    }
    const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
    if (step.text) content.push({ type: 'text', text: step.text });
    for (const c of step.toolCalls) {
      content.push({ type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: safeJson(c.input) });
    }
    if (content.length) run.messages.push({ role: 'assistant', content });
    if (step.toolCalls.length === 0) {
      out.stepFinish(run.step, usage);
      return { kind: 'finished', text, answer, finishReason: normaliseReason(step.finishReason) };
    }

    // As Mastra's stream: the step's calls, then their results, then the step's end (none while it is paused).
    for (const c of step.toolCalls) out.toolCall(c.toolCallId, c.toolName, announcedArgs(run.agent, c));
    run.results = {};
    const paused = await settleStep(run, step.toolCalls, (call) => planToolCall(run, call, out));
    if (paused) return paused;
    out.stepFinish(run.step, usage);
  }
  return { kind: 'finished', text, answer, finishReason: 'tool-calls' };
}

/** A call's arguments as its tool-call chunk shows them: validated when they are valid, else as the model sent them. */
function announcedArgs(agent: AgentInternals, call: ToolCallInput): unknown {
  const target = callTarget(agent, call.toolName);
  const parsed = target ? parseCallInput(target, call.toolName, call.input) : undefined;
  return parsed?.ok ? parsed.args : safeJson(call.input);
}

/**
 * Settles each call of a step in order (those without a result yet). If any
 * must wait, returns the run's suspension; otherwise appends the tool message.
 */
export async function settleStep<C extends { toolCallId: string }>(
  run: RunState,
  calls: C[],
  settle: (call: C) => Promise<CallOutcome>,
): Promise<RunOutcome | undefined> {
  const plan: SuspensionPlan = { snapshots: [], actions: [] };
  for (const call of calls) {
    if (run.results[call.toolCallId]) continue;
    const outcome = await settle(call);
    if (outcome.kind === 'result') run.results[call.toolCallId] = outcome.output;
    else {
      plan.snapshots.push(...outcome.plan.snapshots);
      plan.actions.push(...outcome.plan.actions);
    }
  }
  if (plan.actions.length) {
    plan.snapshots.unshift(snapshotWrite(run));
    return { kind: 'suspended', plan };
  }
  pushToolResults(run);
  return undefined;
}

/** What a snapshot keeps of the run's tokens: the known counts only. */
function storedTokens(u: Usage): NonNullable<RunState['usage']> {
  return { ...(u.inputTokens !== undefined ? { inputTokens: u.inputTokens } : {}), ...(u.outputTokens !== undefined ? { outputTokens: u.outputTokens } : {}) };
}

function safeJson(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return raw;
  }
}

function normaliseReason(reason: string): 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other' {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'content-filter':
    case 'tool-calls':
    case 'error':
      return reason;
    default:
      return 'other';
  }
}

/**
 * Routes one tool call: unknown or invalid → tool error; needs approval →
 * planned approval; otherwise run it (a tool may suspend itself; a sub-agent's
 * own pauses bubble up into this run's plan). The call's name throughout is
 * the one the model used, so chunks, policy, hooks and the approval function
 * all see the same name.
 */
async function planToolCall(run: RunState, call: ToolCallInput, out: Emitter): Promise<CallOutcome> {
  const target = callTarget(run.agent, call.toolName);
  if (!target) return errorResult(call, `Tool ${call.toolName} not found`, out);
  const parsed = parseCallInput(target, call.toolName, call.input);
  if (!parsed.ok) return errorResult(call, parsed.message, out);
  const args = parsed.args;

  const gate = await approvalGate(run, target, call.toolName, args, call.toolCallId);
  // Before anything that could stand in for an approval (a remembered one, the hook): nothing does.
  if (gate.outcome === 'denied') return refuseByPolicy(run, call, args, gate.denial, gate.requirement.policyVersion, out);
  if (gate.outcome === 'asks') {
    // What the approval is bound to besides the arguments: the model's stated reason, and the
    // tool's preview and pinned definition when it has them (bound-call.ts).
    const bound = hasBinding(target) ? await bindRequest(run, target, call, args, parsed.statedReason, out) : reasonOnly(parsed.statedReason);
    if (bound.kind === 'refused') return bound.outcome;
    // Read only when the policy lets this call's approval be remembered (rememberFor).
    const remembered = await useRemembered(run, target, call, args, gate.requirement, out, bound.binding);
    if (remembered?.kind === 'run') return runCall(run, target, call, remembered.args, out, remembered.audit);
    if (remembered?.kind === 'result') return remembered.outcome;
    const unused = remembered?.kind === 'not-used' ? remembered.unused : undefined;
    return { kind: 'pending', plan: { snapshots: [], actions: [withBinding(approvalAction(run, call, args, gate.requirement, unused), bound.binding)] } };
  }
  return runUngated(run, target, call, args, out);
}

function errorResult(call: { toolCallId: string; toolName: string }, message: string, out: Emitter): CallOutcome {
  out.toolResult(call.toolCallId, call.toolName, message, true);
  return { kind: 'result', output: { type: 'error-text', value: message } };
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
  // A hook that changed the arguments cannot make them something the policy denies.
  if (hooked.args !== args) {
    const mcp = target.kind === 'tool' ? target.tool.mcp : undefined;
    const rewritten = requirementFor(run.deps.policy, call.toolName, hooked.args, mcp, null, { at: run.deps.now() });
    if (rewritten.deny) return refuseByPolicy(run, call, hooked.args, rewritten.deny, rewritten.policyVersion, out);
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
  audit: Pick<AuditInput, 'fingerprint' | 'policyVersion'> & { detail?: Record<string, unknown> } = {},
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
    const { detail: extra, ...marks } = audit;
    const detail = error === undefined ? (extra ?? null) : { ...extra, error };
    run.audit.push({ ...callEvent(run, call, error === undefined ? 'executed' : 'failed', detail), ...marks });
  }
  return outcome;
}
