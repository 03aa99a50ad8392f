import { randomBytes } from 'node:crypto';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { decideReply } from './decide-reply.js';

/*
 * The built-in demo model: what the demo agents think with when no MODEL and key
 * are configured, so `npm start` shows approvals, confirmations and questions in
 * Slack without an account anywhere. It is a plain LanguageModelV3, so the runtime
 * treats it exactly like a provider's model; it just never leaves the process and
 * answers the same prompt the same way every time (tool-call ids aside).
 *
 * This file is only the LanguageModelV3 side (ids, usage, streaming pace); what it
 * says or calls is decided in decide-reply.ts, and what it understands is listed
 * in parse-request.ts.
 */

const DEMO_MODEL_PROVIDER = 'demo';
const DEMO_MODEL_ID = 'demo-model';

interface DemoModelOptions {
  /**
   * Pause between streamed pieces of text. Real models trickle text out; without a
   * pause every piece arrives in one tick and a Slack message would never be seen
   * growing. Tests pass 0.
   */
  chunkDelayMs?: number;
}

let callCounter = 0;

export function createDemoModel(options: DemoModelOptions = {}): LanguageModelV3 {
  const delayMs = options.chunkDelayMs ?? 35;

  function describe(call: LanguageModelV3CallOptions) {
    call.abortSignal?.throwIfAborted();
    const reply = decideReply(call);
    const calls = reply.calls.map((c) => ({ ...c, toolCallId: nextToolCallId(), json: JSON.stringify(c.input) }));
    const usage = usageOf(call, reply.text + calls.map((c) => c.toolName + c.json).join(''));
    const finishReason = calls.length
      ? { unified: 'tool-calls' as const, raw: 'tool_calls' }
      : { unified: 'stop' as const, raw: 'stop' };
    const response = { id: `demo_resp_${randomBytes(6).toString('hex')}`, modelId: DEMO_MODEL_ID, timestamp: new Date() };
    return { reply, calls, usage, finishReason, response };
  }

  return {
    specificationVersion: 'v3',
    provider: DEMO_MODEL_PROVIDER,
    modelId: DEMO_MODEL_ID,
    supportedUrls: {},

    async doGenerate(call): Promise<LanguageModelV3GenerateResult> {
      const { reply, calls, usage, finishReason, response } = describe(call);
      const content: LanguageModelV3Content[] = [];
      if (reply.text) content.push({ type: 'text', text: reply.text });
      for (const c of calls) content.push({ type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: c.json });
      return { content, finishReason, usage, warnings: [], response };
    },

    async doStream(call) {
      const { reply, calls, usage, finishReason, response } = describe(call);
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', ...response },
      ];
      if (reply.text) {
        const id = `${response.id}_text`;
        parts.push({ type: 'text-start', id });
        for (const delta of wordGroups(reply.text)) parts.push({ type: 'text-delta', id, delta });
        parts.push({ type: 'text-end', id });
      }
      for (const c of calls) {
        parts.push(
          { type: 'tool-input-start', id: c.toolCallId, toolName: c.toolName },
          { type: 'tool-input-delta', id: c.toolCallId, delta: c.json },
          { type: 'tool-input-end', id: c.toolCallId },
          { type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: c.json },
        );
      }
      parts.push({ type: 'finish', finishReason, usage });

      const signal = call.abortSignal;
      let index = 0;
      let deltas = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          const part = parts[index++];
          if (!part) {
            controller.close();
            return;
          }
          if (part.type === 'text-delta' && deltas++ > 0 && delayMs > 0) await pause(delayMs, signal);
          if (signal?.aborted) {
            controller.error(signal.reason);
            return;
          }
          controller.enqueue(part);
        },
      });
      return { stream };
    },
  };
}

function nextToolCallId(): string {
  callCounter += 1;
  // The counter keeps ids apart within a process, the random part across restarts,
  // since stored runs keep the ids of calls made before the restart.
  return `demo_${callCounter}_${randomBytes(4).toString('hex')}`;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Three words per delta: enough pieces to see the text grow, few enough to stay cheap. */
function wordGroups(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const groups: string[] = [];
  for (let i = 0; i < words.length; i += 3) groups.push(words.slice(i, i + 3).join(''));
  return groups;
}

function usageOf(call: LanguageModelV3CallOptions, output: string): LanguageModelV3Usage {
  const input = Math.max(1, Math.ceil((JSON.stringify(call.prompt).length + JSON.stringify(call.tools ?? []).length) / 4));
  const out = Math.max(1, Math.ceil(output.length / 4));
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: out, text: out, reasoning: 0 },
  };
}
