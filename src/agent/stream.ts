import type { AgentStream, AgentChunk, FinishReason, GenerateResult, SuspendPayload, BlockedCall, RememberedCall, ApprovalRequest, SuspensionRequest, StepResult, ToolCallEntry, ToolResultEntry, Usage, DeniedCall, ResumedCall } from './api-types.js';
import type { PendingAction } from '../db/rows.js';
import { unreachable } from '../unreachable.js';
import { notePausedStep } from './generated-result.js';

/** What a continuation's stream knows of its run before it (see StreamSink.seed). */
export interface PriorRun {
  text: string;
  /** The finished steps. */
  steps: StepResult[];
  /** The step the run paused in: its text, calls and the results known before the pause. */
  paused?: StepResult;
  usage: Usage;
}

const noUsage = (): Usage => ({ inputTokens: undefined, outputTokens: undefined, totalTokens: undefined });

/** Tokens added up, unknown counts staying unknown; `totalTokens` is theirs summed. */
export function addUsage(a: Partial<Usage> | undefined, b: Partial<Usage> | undefined): Usage {
  const add = (x: number | undefined, y: number | undefined) => (x === undefined ? y : y === undefined ? x : x + y);
  const inputTokens = add(a?.inputTokens, b?.inputTokens);
  const outputTokens = add(a?.outputTokens, b?.outputTokens);
  return { inputTokens, outputTokens, totalTokens: inputTokens === undefined && outputTokens === undefined ? undefined : (inputTokens ?? 0) + (outputTokens ?? 0) };
}

/**
 * `before` and a step's text as a front end shows an answer: each step's text its own paragraph,
 * so "Let me check." and "It exists." do not run together. The stream's own text is the model's,
 * run together, as Mastra's.
 */
export function paragraphs(before: string, text: string): string {
  return before !== '' && text !== '' && !/\s$/.test(before) ? `${before}\n\n${text}` : before + text;
}

export function toolCallEntry(runId: string, call: { toolCallId: string; toolName: string; args: unknown }): ToolCallEntry {
  const payload = { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args };
  return { type: 'tool-call', runId, from: 'AGENT', payload, ...payload };
}

export function toolResultEntry(
  runId: string,
  result: { toolCallId: string; toolName: string; args: unknown; result: unknown; isError: boolean },
): ToolResultEntry {
  const payload = { toolCallId: result.toolCallId, toolName: result.toolName, args: result.args, result: result.result, isError: result.isError };
  return { type: 'tool-result', runId, from: 'AGENT', payload, ...payload };
}

function emptyStep(): StepResult {
  return { text: '', toolCalls: [], toolResults: [], finishReason: 'tool-calls', usage: noUsage() };
}

/**
 * The writing side of a stream. The run starts at once and pushes chunks here;
 * any number of readers can replay them from the start, so `fullStream` and
 * `textStream` can both be read, late or never. What the run did before a pause
 * (seed) is part of what a continuation's stream reports, as Mastra's is.
 */
export class StreamSink {
  private readonly chunks: AgentChunk[] = [];
  private readonly waiters = new Set<() => void>();
  private done = false;
  private resolveResult!: (r: GenerateResult) => void;
  readonly result: Promise<GenerateResult>;
  private prior: PriorRun | undefined;
  private text = '';
  private readonly toolCalls: ToolCallEntry[] = [];
  private readonly argsOf = new Map<string, unknown>();
  /** The step in progress (the paused one, for a continuation): it ends with its step-finish, after its calls' results. */
  private current = emptyStep();
  private readonly finished: StepResult[] = [];
  private readonly pending: SuspendPayload[] = [];
  /** Tokens of this stream's model calls, a step that paused included. */
  private usage = noUsage();

  constructor(readonly runId: string) {
    this.result = new Promise((resolve) => (this.resolveResult = resolve));
  }

  /** What the run did before this stream: its text, steps, calls and usage (once; later calls are ignored). */
  seed(prior: PriorRun): void {
    if (this.prior || this.done) return;
    this.prior = prior;
    for (const step of [...prior.steps, ...(prior.paused ? [prior.paused] : [])]) {
      for (const c of step.toolCalls) this.argsOf.set(c.toolCallId, c.args);
    }
    if (prior.paused) this.current = { ...prior.paused, toolResults: [...prior.paused.toolResults] };
  }

  /** A call's arguments as its tool-call chunk (or, for a continuation, the restored run) gave them. */
  argsOfCall(toolCallId: string): unknown {
    return this.argsOf.get(toolCallId);
  }

  /** Tokens of a model call of the run (not a chunk: step-finish shows them, but a step that pauses has none). */
  addTokens(usage: Usage): void {
    if (!this.done) this.usage = addUsage(this.usage, usage);
  }

  push(chunk: AgentChunk): void {
    if (this.done) return;
    switch (chunk.type) {
      case 'text-delta':
        this.text += chunk.payload.text;
        this.current.text += chunk.payload.text;
        break;
      case 'tool-call': {
        const entry = toolCallEntry(this.runId, chunk.payload);
        this.toolCalls.push(entry);
        this.current.toolCalls.push(entry);
        this.argsOf.set(chunk.payload.toolCallId, chunk.payload.args);
        break;
      }
      case 'tool-result':
        this.current.toolResults.push(toolResultEntry(this.runId, chunk.payload));
        break;
      case 'step-finish': {
        const step = this.current;
        // In the order of the calls, as Mastra lists them, whenever each ran (some before a pause).
        if (step.toolResults.length > 1) {
          const order = step.toolCalls.map((c) => c.toolCallId);
          step.toolResults.sort((a, b) => order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId));
        }
        step.usage = addUsage(undefined, chunk.payload.usage);
        step.finishReason = step.toolCalls.length ? 'tool-calls' : 'stop';
        this.finished.push(step);
        this.current = emptyStep();
        break;
      }
      case 'tool-call-approval': {
        const p = chunk.payload;
        this.pending.push(pendingOf('approval', p));
        break;
      }
      case 'tool-call-suspended': {
        const p = chunk.payload;
        this.pending.push({ ...pendingOf('suspension', p), suspendPayload: p.suspendPayload });
        break;
      }
      case 'start':
      case 'tool-call-blocked':
      case 'tool-call-remembered':
      case 'tool-output-denied':
      case 'tool-call-resumed':
      case 'finish':
      case 'error':
        break;
      default:
        unreachable(chunk, 'agent chunk');
    }
    this.chunks.push(chunk);
    this.wake();
  }

  /** Calls the run waits on that no chunk of this stream announces (Mastra announces one per stream). */
  alsoPending(stillPending: SuspendPayload[]): void {
    if (!this.done) this.pending.push(...stillPending);
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

  /** Ends the stream; the finish chunk carries the reason (a paused stream has none). */
  finish(finishReason: FinishReason, error?: unknown): void {
    if (this.done) return;
    if (error !== undefined) this.push({ type: 'error', runId: this.runId, payload: { error } });
    const reason = finishReason === 'suspended' && this.pending.length === 0 ? 'stop' : finishReason;
    const prior = this.prior;
    // Every step's text run together, the paused step's too, as Mastra's stream reports it.
    const text = (prior?.text ?? '') + this.text;
    // A paused step is not finished: its results are reported once it is (Mastra's generate() does the same).
    // A step cut short (an error) is reported as far as it got.
    const cut = this.current;
    const steps: StepResult[] = [];
    if (prior) for (const step of prior.steps) steps.push(step);
    for (const step of this.finished) steps.push(step);
    if (reason !== 'suspended' && (cut.text !== '' || cut.toolCalls.length > 0)) steps.push(cut);
    const final = steps[steps.length - 1];
    if (final && reason !== 'suspended' && reason !== 'tool-calls' && final.toolCalls.length === 0) final.finishReason = reason;
    const usage = addUsage(prior?.usage ?? noUsage(), this.usage);
    // As Mastra's, a paused stream ends with the chunk announcing the pause: no finish chunk (finishReason says 'suspended').
    if (reason !== 'suspended') this.push({ type: 'finish', runId: this.runId, payload: { finishReason: reason, text } });
    this.done = true;
    this.wake();
    const pending = reason === 'suspended' ? this.pending : [];
    const toolCalls: ToolCallEntry[] = [];
    if (prior) {
      for (const step of prior.steps) for (const call of step.toolCalls) toolCalls.push(call);
      if (prior.paused) for (const call of prior.paused.toolCalls) toolCalls.push(call);
    }
    for (const call of this.toolCalls) toolCalls.push(call);
    const toolResults: ToolResultEntry[] = [];
    for (const step of steps) for (const r of step.toolResults) toolResults.push(r);
    const result: GenerateResult = { runId: this.runId, text, finishReason: reason, suspendPayload: pending[0], pending, toolCalls, toolResults, steps, usage };
    if (error !== undefined) result.error = error;
    // The step a run paused in is the one with calls still open (a reply not taken as an answer is no step's).
    if (reason === 'suspended' && cut.toolCalls.length > 0 && text.endsWith(cut.text)) notePausedStep(result, cut.text);
    this.resolveResult(result);
  }

  /** Whether the stream knows what its run did before it (see seed). */
  get isSeeded(): boolean {
    return this.prior !== undefined;
  }

  get isFinished(): boolean {
    return this.done;
  }

  private wake(): void {
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  /** Replays every chunk from the first, then follows the live ones. */
  async *read(): AsyncGenerator<AgentChunk> {
    let index = 0;
    for (;;) {
      while (index < this.chunks.length) yield this.chunks[index++]!;
      if (this.done) return;
      await new Promise<void>((resolve) => this.waiters.add(resolve));
    }
  }

  toStream(): AgentStream {
    return new SinkStream(this);
  }
}

/**
 * A stream's reading side. The derived promises are made when first asked for:
 * most callers read one or two of them, and each costs a promise and a closure.
 */
class SinkStream implements AgentStream {
  readonly runId: string;
  readonly result: Promise<GenerateResult>;
  #text: Promise<string> | undefined;
  #finishReason: Promise<FinishReason> | undefined;
  #suspendPayload: Promise<SuspendPayload | undefined> | undefined;
  #toolCalls: Promise<ToolCallEntry[]> | undefined;
  #toolResults: Promise<ToolResultEntry[]> | undefined;
  #steps: Promise<StepResult[]> | undefined;
  #usage: Promise<Usage> | undefined;

  constructor(private readonly sink: StreamSink) {
    this.runId = sink.runId;
    this.result = sink.result;
  }

  get fullStream(): AsyncIterable<AgentChunk> {
    return this.sink.read();
  }

  get textStream(): AsyncIterable<string> {
    const sink = this.sink;
    return (async function* () {
      for await (const chunk of sink.read()) if (chunk.type === 'text-delta') yield chunk.payload.text;
    })();
  }

  get text(): Promise<string> {
    return (this.#text ??= this.result.then((r) => r.text));
  }

  get finishReason(): Promise<FinishReason> {
    return (this.#finishReason ??= this.result.then((r) => r.finishReason));
  }

  get suspendPayload(): Promise<SuspendPayload | undefined> {
    return (this.#suspendPayload ??= this.result.then((r) => r.suspendPayload));
  }

  get toolCalls(): Promise<ToolCallEntry[]> {
    return (this.#toolCalls ??= this.result.then((r) => r.toolCalls));
  }

  get toolResults(): Promise<ToolResultEntry[]> {
    return (this.#toolResults ??= this.result.then((r) => r.toolResults));
  }

  get steps(): Promise<StepResult[]> {
    return (this.#steps ??= this.result.then((r) => r.steps));
  }

  get usage(): Promise<Usage> {
    return (this.#usage ??= this.result.then((r) => r.usage));
  }

  consumeStream(): Promise<GenerateResult> {
    return this.result;
  }
}

/** A request a pause stored, as its chunk shows it. */
export type AnnouncedRequest = { kind: 'approval'; payload: ApprovalRequest } | { kind: 'suspension'; payload: SuspensionRequest };

/** The result's view of an announced request. */
export function pendingOfAnnounced(a: AnnouncedRequest): SuspendPayload {
  return a.kind === 'approval' ? pendingOf('approval', a.payload) : { ...pendingOf('suspension', a.payload), suspendPayload: a.payload.suspendPayload };
}

/** The chunk announcing a request. */
export function announcementChunk(runId: string, a: AnnouncedRequest): AgentChunk {
  return a.kind === 'approval' ? { type: 'tool-call-approval', runId, payload: a.payload } : { type: 'tool-call-suspended', runId, payload: a.payload };
}

function pendingOf(kind: 'approval' | 'suspension', p: ApprovalRequest | SuspensionRequest): SuspendPayload {
  const inner = 'innerToolName' in p ? p : undefined;
  return {
    kind,
    toolCallId: p.toolCallId,
    toolName: p.toolName,
    args: p.args,
    path: p.path,
    runId: p.runId,
    ...(p.innerToolCallId ? { innerToolCallId: p.innerToolCallId } : {}),
    ...(inner?.innerToolName ? { innerToolName: inner.innerToolName, innerArgs: inner.innerArgs } : {}),
  };
}

/** Where a run's live chunks go: the caller's stream, or nowhere for a sub-agent. */
export interface Emitter {
  text(delta: string): void;
  toolCall(toolCallId: string, toolName: string, args: unknown): void;
  toolResult(toolCallId: string, toolName: string, result: unknown, isError: boolean): void;
  stepFinish(step: number, usage?: Usage): void;
  /** Tokens of a model call, counted in the stream's usage whether or not its step ends in this stream. */
  tokens(usage: Usage): void;
  blocked(call: BlockedCall): void;
  remembered(call: RememberedCall): void;
  denied(call: DeniedCall): void;
  resumed(call: ResumedCall): void;
}

/** The emitter of a run whose chunks go to its caller's stream (one per stream: methods, not closures). */
class SinkEmitter implements Emitter {
  private readonly runId: string;

  constructor(private readonly sink: StreamSink) {
    this.runId = sink.runId;
  }

  text(text: string): void {
    this.sink.push({ type: 'text-delta', runId: this.runId, payload: { text } });
  }

  toolCall(toolCallId: string, toolName: string, args: unknown): void {
    this.sink.push({ type: 'tool-call', runId: this.runId, payload: { toolCallId, toolName, args } });
  }

  toolResult(toolCallId: string, toolName: string, result: unknown, isError: boolean): void {
    const sink = this.sink;
    sink.push({ type: 'tool-result', runId: this.runId, payload: { toolCallId, toolName, args: sink.argsOfCall(toolCallId), result, isError } });
  }

  stepFinish(step: number, usage?: Usage): void {
    this.sink.push({ type: 'step-finish', runId: this.runId, payload: usage ? { step, usage } : { step } });
  }

  tokens(usage: Usage): void {
    this.sink.addTokens(usage);
  }

  blocked(call: BlockedCall): void {
    this.sink.push({ type: 'tool-call-blocked', runId: this.runId, payload: call });
  }

  remembered(call: RememberedCall): void {
    this.sink.push({ type: 'tool-call-remembered', runId: this.runId, payload: call });
  }

  denied(call: DeniedCall): void {
    this.sink.push({ type: 'tool-output-denied', runId: this.runId, payload: call });
  }

  resumed(call: ResumedCall): void {
    this.sink.push({ type: 'tool-call-resumed', runId: this.runId, payload: call });
  }
}

export function sinkEmitter(sink: StreamSink): Emitter {
  return new SinkEmitter(sink);
}

/** A sub-agent's words are its parent's tool result, not the user's answer. */
export const quietEmitter: Emitter = {
  text: () => {},
  toolCall: () => {},
  toolResult: () => {},
  stepFinish: () => {},
  tokens: () => {},
  blocked: () => {},
  remembered: () => {},
  denied: () => {},
  resumed: () => {},
};

/**
 * A resumed sub-agent: quiet, except that a blocked call still reaches the top
 * stream, because the card people approved must not go on saying "Approved",
 * and so does a call run under a remembered approval, which its thread is told
 * about, and a paused call going on (`tool-call-resumed`, under the top-level
 * delegation's id the pause was announced by).
 */
export function subAgentEmitter(sink: StreamSink): Emitter {
  const top = sinkEmitter(sink);
  return {
    ...quietEmitter,
    blocked: (call) => top.blocked(call),
    remembered: (call) => top.remembered(call),
    resumed: (call) => top.resumed(call),
  };
}

/** Every request one pause stored, by the payload object of the one chunk that announced the pause. */
const pauses = new WeakMap<object, readonly AnnouncedRequest[]>();

/** Called by the runtime as it announces a pause it has just stored (`all` in the order asked, the announced one first). */
export function rememberPause(payload: object, all: readonly AnnouncedRequest[]): void {
  pauses.set(payload, all);
}

/**
 * Every request stored by the pause a `tool-call-approval` or `tool-call-suspended` chunk
 * announced, in the order they were asked (the announced one first), when the chunk announced a
 * pause this process just stored. A stream announces one paused call, as Mastra's does; a front
 * end that shows all the calls of a pause at once (the Slack batch card) reads them here.
 * Undefined for a chunk that reminds of a call announced before (a continuation's, while the run
 * still waits on it): its request is already shown.
 */
export function requestsOfPause(payload: object): readonly AnnouncedRequest[] | undefined {
  return pauses.get(payload);
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
