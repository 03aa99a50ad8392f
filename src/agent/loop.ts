import type { LanguageModelV3Message, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { callModel } from './call-model.js';
import type { Emitter } from './emitter.js';
import { snapshotWrite, type RunOutcome, type SuspensionPlan } from './plan.js';
import { planToolCall, type CallOutcome } from './plan-tool-call.js';
import { stillHeld, type RunState } from './run-state.js';

/**
 * The step loop: call the model, route each tool call, and either continue
 * with the results or stop with a plan of what the run now waits on.
 */
export async function runSteps(run: RunState, out: Emitter): Promise<RunOutcome> {
  let text = '';
  while (run.step < run.options.maxSteps) {
    const prompt: LanguageModelV3Message[] = [
      ...(run.agent.instructions ? [{ role: 'system' as const, content: run.agent.instructions }] : []),
      ...run.history,
      ...run.messages,
    ];
    let stepStarted = false;
    await stillHeld(run);
    const step = await callModel(run.agent.model, prompt, run.agent.toolSpecs, (delta) => {
      // Each step's text is its own paragraph; otherwise "Let me check." and "It exists." run together.
      const piece = !stepStarted && text !== '' && !/\s$/.test(text) ? `\n\n${delta}` : delta;
      stepStarted = true;
      text += piece;
      out.text(piece);
    });
    run.step += 1;
    const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
    if (step.text) content.push({ type: 'text', text: step.text });
    for (const c of step.toolCalls) {
      content.push({ type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: safeJson(c.input) });
    }
    if (content.length) run.messages.push({ role: 'assistant', content });
    out.stepFinish(run.step);
    if (step.toolCalls.length === 0) {
      return { kind: 'finished', text, finishReason: normaliseReason(step.finishReason) };
    }

    run.results = {};
    const paused = await settleStep(run, step.toolCalls, (call) => planToolCall(run, call, out));
    if (paused) return paused;
  }
  return { kind: 'finished', text, finishReason: 'tool-calls' };
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

/** Appends the tool message for the last step, in the order the model made the calls. */
export function pushToolResults(run: RunState): void {
  const last = run.messages[run.messages.length - 1];
  if (!last || last.role !== 'assistant') return;
  const content: Array<{
    type: 'tool-result';
    toolCallId: string;
    toolName: string;
    output: LanguageModelV3ToolResultOutput;
  }> = [];
  for (const part of last.content) {
    if (part.type !== 'tool-call') continue;
    const output = run.results[part.toolCallId] ?? { type: 'error-text' as const, value: 'No result' };
    content.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output });
  }
  run.messages.push({ role: 'tool', content });
  run.results = {};
}

export function lastToolCalls(run: RunState): Array<{ toolCallId: string; toolName: string; input: unknown }> {
  const last = run.messages[run.messages.length - 1];
  if (!last || last.role !== 'assistant') return [];
  return last.content.flatMap((p) =>
    p.type === 'tool-call' ? [{ toolCallId: p.toolCallId, toolName: p.toolName, input: p.input }] : [],
  );
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
