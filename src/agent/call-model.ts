import { APICallError, type LanguageModelV3, type LanguageModelV3CallOptions, type LanguageModelV3FunctionTool, type LanguageModelV3Message, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { Span } from '@opentelemetry/api';
import type { CallSettings } from './model-settings.js';
import { inSpan, type RunTelemetry } from './telemetry.js';
import { ModelCallError, RunAbortedError } from './errors.js';
import { botMetrics } from '../metrics/bot-metrics.js';

interface ModelStep {
  text: string;
  toolCalls: Array<{ toolCallId: string; toolName: string; input: string }>;
  finishReason: string;
  usage?: { inputTokens: number | undefined; outputTokens: number | undefined };
}

/** Which call this is, and how to make it. */
interface ModelCallContext {
  runId: string;
  agentId: string;
  /** The step this call makes, from 1. */
  step: number;
  settings?: CallSettings;
  abortSignal?: AbortSignal;
  telemetry?: RunTelemetry;
}

const defaultMaxRetries = 2;
/** A server's retry-after longer than this is not waited for; the backoff's own delay is used instead. */
const maxRetryAfterMs = 60_000;

/** `provider/modelId` as errors and spans name the model. */
function modelName(model: LanguageModelV3): string {
  return `${model.provider}/${model.modelId}`;
}

/** What a model call is given: the model, the conversation so far, the tools it may call, where text goes, and its run. */
type ModelCallArgs = [
  model: LanguageModelV3,
  prompt: LanguageModelV3Message[],
  tools: LanguageModelV3FunctionTool[],
  onText: (delta: string) => void,
  context: ModelCallContext,
];

/**
 * One model call, streamed. Text deltas go to `onText` as they arrive; tool
 * calls are collected whole. Transient provider errors (the ones the SDK marks
 * retryable: 429, 5xx, network) are retried before any output was produced,
 * `maxRetries` times with backoff (or the server's retry-after). Fails with
 * ModelCallError wrapping the provider's error, or RunAbortedError once the
 * call's abortSignal fires (the provider's request is aborted with it).
 */
export async function callModel(...call: ModelCallArgs): Promise<ModelStep> {
  botMetrics.modelCalls.inc();
  const started = performance.now();
  try {
    return await tracedCall(call);
  } catch (error) {
    // A run stopped on purpose is not a failing provider.
    if (!(error instanceof RunAbortedError)) botMetrics.modelErrors.inc();
    throw error;
  } finally {
    botMetrics.modelLatency.observe((performance.now() - started) / 1000);
  }
}

/** The call, in its span when telemetry is on; callModel counts and times it once. */
function tracedCall(call: ModelCallArgs): Promise<ModelStep> {
  const [model, , , , context] = call;
  if (!context.telemetry) return attempts(call);
  return inSpan(
    context.telemetry,
    'ai.streamText.doStream',
    spanAttributes(model, context),
    (span) => attempts(call, span),
    (span, step) => {
      span.setAttributes({
        'ai.response.finishReason': step.finishReason,
        'gen_ai.response.finish_reasons': [step.finishReason],
        'ai.response.toolCalls': step.toolCalls.length,
      });
      if (step.usage?.inputTokens !== undefined) {
        span.setAttributes({ 'ai.usage.inputTokens': step.usage.inputTokens, 'gen_ai.usage.input_tokens': step.usage.inputTokens });
      }
      if (step.usage?.outputTokens !== undefined) {
        span.setAttributes({ 'ai.usage.outputTokens': step.usage.outputTokens, 'gen_ai.usage.output_tokens': step.usage.outputTokens });
      }
    },
  );
}

async function attempts([model, prompt, tools, onText, context]: ModelCallArgs, span?: Span): Promise<ModelStep> {
  const { settings, abortSignal } = context;
  const maxRetries = settings?.maxRetries ?? defaultMaxRetries;
  let attempt = 0;
  for (;;) {
    let produced = false;
    try {
      if (abortSignal?.aborted) throw abortSignal.reason;
      return await streamOnce(model, callOptions(prompt, tools, settings, abortSignal), onText, () => (produced = true), abortSignal);
    } catch (error) {
      if (abortSignal?.aborted) throw new RunAbortedError(context.runId, abortSignal.reason);
      attempt += 1;
      if (!produced && attempt <= maxRetries && APICallError.isInstance(error) && error.isRetryable) {
        span?.addEvent('retry', { attempt, 'error.message': error.message });
        await sleep(retryDelayMs(attempt, error), abortSignal).catch(() => {
          throw new RunAbortedError(context.runId, abortSignal?.reason);
        });
        continue;
      }
      throw new ModelCallError(error, { runId: context.runId, agentId: context.agentId, model: modelName(model), step: context.step, attempts: attempt });
    }
  }
}

function callOptions(
  prompt: LanguageModelV3Message[],
  tools: LanguageModelV3FunctionTool[],
  settings: CallSettings | undefined,
  abortSignal: AbortSignal | undefined,
): LanguageModelV3CallOptions {
  const options: LanguageModelV3CallOptions = { prompt, ...(tools.length ? { tools, toolChoice: { type: 'auto' as const } } : {}) };
  if (settings) {
    // Everything but maxRetries is the provider's, passed on unchanged.
    const { maxRetries: _maxRetries, ...forProvider } = settings;
    Object.assign(options, forProvider);
  }
  if (abortSignal) options.abortSignal = abortSignal;
  return options;
}

async function streamOnce(
  model: LanguageModelV3,
  options: LanguageModelV3CallOptions,
  onText: (delta: string) => void,
  producing: () => void,
  abortSignal: AbortSignal | undefined,
): Promise<ModelStep> {
  const { stream } = await model.doStream(options);
  const step: ModelStep = { text: '', toolCalls: [], finishReason: 'other' };
  const reader = stream.getReader();
  // A provider whose stream does not end on abort (one that ignores the signal) is stopped here.
  const stop = () => void reader.cancel(abortSignal?.reason).catch(() => {});
  abortSignal?.addEventListener('abort', stop, { once: true });
  // Aborted while the provider was still opening the stream: the listener came too late to hear it.
  if (abortSignal?.aborted) stop();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value as LanguageModelV3StreamPart;
      switch (part.type) {
        case 'text-delta':
          producing();
          step.text += part.delta;
          onText(part.delta);
          break;
        case 'tool-call':
          producing();
          if (!part.providerExecuted) {
            step.toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
          }
          break;
        case 'finish':
          step.finishReason = part.finishReason.unified;
          step.usage = { inputTokens: part.usage.inputTokens.total, outputTokens: part.usage.outputTokens.total };
          break;
        case 'error':
          throw part.error;
        default:
          break;
      }
    }
  } finally {
    abortSignal?.removeEventListener('abort', stop);
  }
  if (abortSignal?.aborted) throw abortSignal.reason;
  return step;
}

/** As `ai` waits: the server's retry-after when it is reasonable, otherwise 250 ms, 1 s, 4 s, … */
function retryDelayMs(attempt: number, error: APICallError): number {
  const backoff = 250 * 4 ** (attempt - 1);
  const headers = error.responseHeaders ?? {};
  const afterMs = Number(headers['retry-after-ms']);
  const afterSeconds = Number(headers['retry-after']);
  const hinted = Number.isFinite(afterMs) && headers['retry-after-ms'] !== undefined ? afterMs : Number.isFinite(afterSeconds) && headers['retry-after'] !== undefined ? afterSeconds * 1000 : undefined;
  if (hinted !== undefined && hinted >= 0 && (hinted <= maxRetryAfterMs || hinted < backoff)) return hinted;
  return backoff;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function spanAttributes(model: LanguageModelV3, context: ModelCallContext) {
  const s = context.settings;
  return {
    'ai.model.id': model.modelId,
    'ai.model.provider': model.provider,
    'gen_ai.system': model.provider,
    'gen_ai.request.model': model.modelId,
    'agent.id': context.agentId,
    'agent.run_id': context.runId,
    'agent.step': context.step,
    ...(s?.temperature !== undefined ? { 'gen_ai.request.temperature': s.temperature } : {}),
    ...(s?.topP !== undefined ? { 'gen_ai.request.top_p': s.topP } : {}),
    ...(s?.topK !== undefined ? { 'gen_ai.request.top_k': s.topK } : {}),
    ...(s?.maxOutputTokens !== undefined ? { 'gen_ai.request.max_tokens': s.maxOutputTokens } : {}),
    ...(s?.seed !== undefined ? { 'gen_ai.request.seed': s.seed } : {}),
  };
}
