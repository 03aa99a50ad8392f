import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart, LanguageModelV3StreamResult } from '@ai-sdk/provider';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

let callCounter = 0;

/**
 * A zero-latency model with no state and no call log, so any number of runs
 * can share it and it retains nothing between calls (MockLanguageModelV3 keeps
 * every prompt in `doStreamCalls`, which would show up in the heap figures).
 *
 * Step 1 (the prompt does not end in a tool message): one call of `toolName`
 * with `{ id }` taken from the last user message. Step 2 (it does): the text
 * `Deleted <done>.`, where `<done>` comes from the tool result, so a cycle can
 * check that the result really reached the model.
 */
export function approvalScriptModel(toolName: string): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'bench',
    modelId: 'scripted-approval',
    supportedUrls: {},
    doGenerate() {
      throw new Error('the bench model only streams');
    },
    async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
      return { stream: streamOf(partsFor(options, toolName)) };
    },
  };
}

function partsFor(options: LanguageModelV3CallOptions, toolName: string): LanguageModelV3StreamPart[] {
  const last = options.prompt[options.prompt.length - 1];
  const out: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (last?.role === 'tool') {
    const result = last.content.find((p) => p.type === 'tool-result');
    const output = result?.type === 'tool-result' ? result.output : undefined;
    const done = output?.type === 'json' ? (output.value as { done?: unknown } | null)?.done : undefined;
    out.push(
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: `Deleted ${String(done)}.` },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
    );
    return out;
  }
  const user = [...options.prompt].reverse().find((m) => m.role === 'user');
  const text = user?.role === 'user' ? user.content.find((p) => p.type === 'text') : undefined;
  const id = text?.type === 'text' ? text.text.split(' ').pop() ?? 'x' : 'x';
  out.push(
    { type: 'tool-call', toolCallId: `call_${++callCounter}`, toolName, input: JSON.stringify({ id }) },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
  );
  return out;
}

function streamOf(parts: LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      controller.close();
    },
  });
}
