import type { AgentStream, AgentChunk, FinishReason, GenerateResult, SuspendPayload, BlockedCall, RememberedCall } from './types.js';
import type { PendingAction } from '../db/rows.js';
import { unreachable } from '../unreachable.js';

/**
 * The writing side of a stream. The run starts at once and pushes chunks here;
 * any number of readers can replay them from the start, so `fullStream` and
 * `textStream` can both be read, late or never.
 */
export class StreamSink {
  private readonly chunks: AgentChunk[] = [];
  private readonly waiters = new Set<() => void>();
  private done = false;
  private resolveResult!: (r: GenerateResult) => void;
  readonly result: Promise<GenerateResult>;
  private text = '';
  private readonly toolCalls: GenerateResult['toolCalls'] = [];
  private readonly toolResults: GenerateResult['toolResults'] = [];
  private readonly pending: SuspendPayload[] = [];

  constructor(readonly runId: string) {
    this.result = new Promise((resolve) => (this.resolveResult = resolve));
  }

  push(chunk: AgentChunk): void {
    if (this.done) return;
    switch (chunk.type) {
      case 'text-delta':
        this.text += chunk.payload.text;
        break;
      case 'tool-call':
        this.toolCalls.push(chunk.payload);
        break;
      case 'tool-result':
        this.toolResults.push(chunk.payload);
        break;
      case 'tool-call-approval': {
        const p = chunk.payload;
        this.pending.push({ kind: 'approval', toolCallId: p.toolCallId, toolName: p.toolName, args: p.args, path: p.path, runId: p.runId });
        break;
      }
      case 'tool-call-suspended': {
        const p = chunk.payload;
        this.pending.push({
          kind: 'suspension',
          toolCallId: p.toolCallId,
          toolName: p.toolName,
          args: p.args,
          path: p.path,
          runId: p.runId,
          suspendPayload: p.suspendPayload,
        });
        break;
      }
      case 'start':
      case 'tool-call-blocked':
      case 'tool-call-remembered':
      case 'step-finish':
      case 'finish':
      case 'error':
        break;
      default:
        unreachable(chunk, 'agent chunk');
    }
    this.chunks.push(chunk);
    this.wake();
  }

  /**
   * Ends a stream whose run still waits on calls announced earlier (another
   * stream already showed them), so the result can name them without
   * announcing them twice.
   */
  finishWaiting(stillPending: SuspendPayload[]): void {
    if (this.done) return;
    this.pending.push(...stillPending);
    this.finish('suspended');
  }

  /** Ends the stream; the finish chunk carries the reason. */
  finish(finishReason: FinishReason, error?: unknown): void {
    if (this.done) return;
    if (error !== undefined) this.push({ type: 'error', runId: this.runId, payload: { error } });
    const reason = finishReason === 'suspended' && this.pending.length === 0 ? 'stop' : finishReason;
    this.push({ type: 'finish', runId: this.runId, payload: { finishReason: reason, text: this.text } });
    this.done = true;
    this.wake();
    const pending = reason === 'suspended' ? this.pending : [];
    this.resolveResult({
      runId: this.runId,
      text: this.text,
      finishReason: reason,
      suspendPayload: pending[pending.length - 1],
      pending,
      toolCalls: this.toolCalls,
      toolResults: this.toolResults,
      ...(error !== undefined ? { error } : {}),
    });
  }

  get finished(): boolean {
    return this.done;
  }

  private wake(): void {
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  private async *read(): AsyncGenerator<AgentChunk> {
    let index = 0;
    for (;;) {
      while (index < this.chunks.length) yield this.chunks[index++]!;
      if (this.done) return;
      await new Promise<void>((resolve) => this.waiters.add(resolve));
    }
  }

  toStream(): AgentStream {
    const sink = this;
    const result = this.result;
    return {
      runId: this.runId,
      get fullStream() {
        return sink.read();
      },
      get textStream() {
        return (async function* () {
          for await (const chunk of sink.read()) if (chunk.type === 'text-delta') yield chunk.payload.text;
        })();
      },
      text: result.then((r) => r.text),
      finishReason: result.then((r) => r.finishReason),
      suspendPayload: result.then((r) => r.suspendPayload),
      result,
      consumeStream: () => result,
    };
  }
}

/** Where a run's live chunks go: the caller's stream, or nowhere for a sub-agent. */
export interface Emitter {
  text(delta: string): void;
  toolCall(toolCallId: string, toolName: string, args: unknown): void;
  toolResult(toolCallId: string, toolName: string, result: unknown, isError: boolean): void;
  stepFinish(step: number): void;
  blocked(call: BlockedCall): void;
  remembered(call: RememberedCall): void;
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
    remembered: (call) => sink.push({ type: 'tool-call-remembered', runId, payload: call }),
  };
}

/** A sub-agent's words are its parent's tool result, not the user's answer. */
export const quietEmitter: Emitter = {
  text: () => {},
  toolCall: () => {},
  toolResult: () => {},
  stepFinish: () => {},
  blocked: () => {},
  remembered: () => {},
};

/**
 * A resumed sub-agent: quiet, except that a blocked call still reaches the top
 * stream, because the card people approved must not go on saying "Approved",
 * and so does a call run under a remembered approval, which its thread is told about.
 */
export function subAgentEmitter(sink: StreamSink): Emitter {
  const top = sinkEmitter(sink);
  return { ...quietEmitter, blocked: top.blocked, remembered: top.remembered };
}

/** Rows by the payload object of the chunk that announced them; gone with the chunk. */
const rows = new WeakMap<object, PendingAction>();

/** Called by the runtime as it announces a call it has just stored. */
export function rememberStoredAction(payload: object, row: PendingAction): void {
  rows.set(payload, row);
}

/**
 * The pending action a `tool-call-approval` or `tool-call-suspended` chunk
 * announced, as the statement that stored it returned it, when this process
 * stored it. A front end drawing the request from it need not read it back.
 * Not part of the chunk itself: the chunk's payload is the public, Mastra-shaped
 * view of the call, and the row is storage.
 */
export function storedActionOf(payload: object): PendingAction | undefined {
  return rows.get(payload);
}
