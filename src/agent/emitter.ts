import type { StreamSink } from './agent-stream.js';
import type { BlockedCall } from './chunks.js';

/** Where a run's live chunks go: the caller's stream, or nowhere for a sub-agent. */
export interface Emitter {
  text(delta: string): void;
  toolCall(toolCallId: string, toolName: string, args: unknown): void;
  toolResult(toolCallId: string, toolName: string, result: unknown, isError: boolean): void;
  stepFinish(step: number): void;
  blocked(call: BlockedCall): void;
}

export function sinkEmitter(sink: StreamSink): Emitter {
  const runId = sink.runId;
  return {
    text: (text) => sink.push({ type: 'text-delta', runId, payload: { text } }),
    toolCall: (toolCallId, toolName, args) => sink.push({ type: 'tool-call', runId, payload: { toolCallId, toolName, args } }),
    toolResult: (toolCallId, toolName, result, isError) =>
      sink.push({ type: 'tool-result', runId, payload: { toolCallId, toolName, result, isError } }),
    stepFinish: (step) => sink.push({ type: 'step-finish', runId, payload: { step } }),
    blocked: (call) => sink.push({ type: 'tool-call-blocked', runId, payload: call }),
  };
}

/** A sub-agent's words are its parent's tool result, not the user's answer. */
export const quietEmitter: Emitter = {
  text: () => {},
  toolCall: () => {},
  toolResult: () => {},
  stepFinish: () => {},
  blocked: () => {},
};

/**
 * A resumed sub-agent: quiet, except that a blocked call still reaches the top
 * stream, because the card people approved must not go on saying "Approved".
 */
export function subAgentEmitter(sink: StreamSink): Emitter {
  return { ...quietEmitter, blocked: sinkEmitter(sink).blocked };
}
