import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';

export type ScriptStep =
  | { text: string; toolCalls?: undefined }
  | { text?: string; toolCalls: Array<{ toolName: string; args: unknown; toolCallId?: string }> }
  | ((call: LanguageModelV3CallOptions) => ScriptStep);

let counter = 0;

function parts(step: Exclude<ScriptStep, Function>): LanguageModelV3StreamPart[] {
  const out: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (step.text) {
    out.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: step.text }, { type: 'text-end', id: 't' });
  }
  for (const c of step.toolCalls ?? []) {
    out.push({
      type: 'tool-call',
      toolCallId: c.toolCallId ?? `call_${++counter}`,
      toolName: c.toolName,
      input: typeof c.args === 'string' ? c.args : JSON.stringify(c.args),
    });
  }
  out.push({
    type: 'finish',
    finishReason: { unified: step.toolCalls?.length ? 'tool-calls' : 'stop', raw: undefined },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
  });
  return out;
}

/**
 * A zero-latency model that plays the given steps in order (then repeats the
 * last), recording every prompt in `doStreamCalls` for assertions.
 */
export function scriptedModel(steps: ScriptStep[]): MockLanguageModelV3 {
  let index = 0;
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
    doStream: async (options) => {
      let step = steps[Math.min(index, steps.length - 1)]!;
      index += 1;
      while (typeof step === 'function') step = step(options);
      const list = parts(step);
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const p of list) controller.enqueue(p);
            controller.close();
          },
        }),
      };
    },
  });
  return model;
}

/** The tool-result parts of the last prompt a model received. */
export function lastToolResults(model: MockLanguageModelV3) {
  const prompt = model.doStreamCalls[model.doStreamCalls.length - 1]?.prompt ?? [];
  return prompt.flatMap((m) => (m.role === 'tool' ? m.content : []));
}

/** A model that plays `steps` for its first calls, then fails every call after them, as a provider that went down. */
export function modelThatFailsAfter(steps: ScriptStep[]): MockLanguageModelV3 & { calls: () => number } {
  const inner = scriptedModel(steps);
  let calls = 0;
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      calls += 1;
      if (calls > steps.length) throw new Error('the provider is down');
      return inner.doStream(options);
    },
  });
  return Object.assign(model, { calls: () => calls });
}

/** A model that plays `steps`, but whose first call waits for `gate` (a model call in flight when a process stops). */
export function modelStuckOnFirstCall(steps: ScriptStep[], gate: Promise<void>): MockLanguageModelV3 {
  const inner = scriptedModel(steps);
  let first = true;
  return new MockLanguageModelV3({
    doStream: async (options) => {
      if (first) {
        first = false;
        await gate;
      }
      return inner.doStream(options);
    },
  });
}
