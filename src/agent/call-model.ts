import { APICallError, type LanguageModelV3, type LanguageModelV3FunctionTool, type LanguageModelV3Message, type LanguageModelV3StreamPart } from '@ai-sdk/provider';

export interface ModelStep {
  text: string;
  toolCalls: Array<{ toolCallId: string; toolName: string; input: string }>;
  finishReason: string;
}

const retryDelaysMs = [250, 1000];

/**
 * One model call, streamed. Text deltas go to `onText` as they arrive; tool
 * calls are collected whole. Transient provider errors (the ones the SDK marks
 * retryable: 429, 5xx, network) are retried before any output was produced.
 */
export async function callModel(
  model: LanguageModelV3,
  prompt: LanguageModelV3Message[],
  tools: LanguageModelV3FunctionTool[],
  onText: (delta: string) => void,
): Promise<ModelStep> {
  let attempt = 0;
  for (;;) {
    let produced = false;
    try {
      const { stream } = await model.doStream({
        prompt,
        ...(tools.length ? { tools, toolChoice: { type: 'auto' as const } } : {}),
      });
      const step: ModelStep = { text: '', toolCalls: [], finishReason: 'other' };
      const reader = stream.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const part = value as LanguageModelV3StreamPart;
        switch (part.type) {
          case 'text-delta':
            produced = true;
            step.text += part.delta;
            onText(part.delta);
            break;
          case 'tool-call':
            produced = true;
            if (!part.providerExecuted) {
              step.toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
            }
            break;
          case 'finish':
            step.finishReason = part.finishReason.unified;
            break;
          case 'error':
            throw part.error;
          default:
            // The provider's union is open-ended (reasoning, sources, usage, …): only the parts above change a step.
            break;
        }
      }
      return step;
    } catch (error) {
      const delay = retryDelaysMs[attempt];
      if (!produced && delay !== undefined && APICallError.isInstance(error) && error.isRetryable) {
        attempt += 1;
        await new Promise((r) => setTimeout(r, delay));
        continue;
      }
      throw error;
    }
  }
}
