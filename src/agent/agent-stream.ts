import type { AgentChunk, FinishReason, GenerateResult, SuspendPayload } from './chunks.js';

export interface AgentStream {
  runId: string;
  fullStream: AsyncIterable<AgentChunk>;
  textStream: AsyncIterable<string>;
  text: Promise<string>;
  finishReason: Promise<FinishReason>;
  suspendPayload: Promise<SuspendPayload | undefined>;
  result: Promise<GenerateResult>;
  /** Waits for the run to end (or pause) without reading the chunks. */
  consumeStream(): Promise<GenerateResult>;
}

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
      default:
        break;
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
