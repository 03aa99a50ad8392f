import type { GenerateResult } from './api-types.js';

/** The text of the step a paused result's run paused in (see asGenerated). */
const pausedStepText = new WeakMap<GenerateResult, string>();

/** Called by the stream as it reports a paused run: `text` is the paused step's, at the end of the result's text. */
export function notePausedStep(result: GenerateResult, text: string): void {
  pausedStepText.set(result, text);
}

/**
 * A result as Mastra's generate() family reports it where it differs from its stream's: a paused
 * run's `text` is that of its finished steps only, and a sub-agent's pause is the top-level
 * delegation call (`agent-<key>`, its arguments) whose `suspendPayload` is the inner call
 * (`toolCallId`, `toolName`, `args` and, for a suspension, its own `suspendPayload`).
 */
export function asGenerated(result: GenerateResult): GenerateResult {
  if (result.finishReason !== 'suspended') return result;
  const text = result.text.slice(0, result.text.length - (pausedStepText.get(result) ?? '').length);
  const paused = result.suspendPayload;
  if (!paused?.innerToolCallId) return { ...result, text };
  if (paused.kind === 'suspension') {
    const inner = { toolCallId: paused.innerToolCallId, toolName: paused.innerToolName, args: paused.innerArgs, suspendPayload: paused.suspendPayload };
    return { ...result, text, suspendPayload: { ...paused, suspendPayload: inner } };
  }
  const delegation = result.toolCalls.find((c) => c.toolCallId === paused.toolCallId);
  if (!delegation) return { ...result, text };
  const inner = { toolCallId: paused.innerToolCallId, toolName: paused.toolName, args: paused.args };
  return {
    ...result,
    text,
    suspendPayload: { ...paused, toolName: delegation.toolName, args: delegation.args, suspendPayload: inner, innerToolName: paused.toolName, innerArgs: paused.args },
  };
}
