import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Config } from '../config.js';
import { ModelConfigError } from './errors.js';

export type ProviderSettings = Config['providers'];
export type ModelInput = LanguageModelV3 | string;

/**
 * Turns `provider/model` into a model object, at construction time, so an
 * unknown provider or a missing key fails when the agent is defined rather
 * than on the first message someone sends in Slack. Without `providers` (a
 * library user who configures nothing), the provider is created with the AI
 * SDK's defaults, which read its own variables (OPENAI_API_KEY, …) when it is
 * first called; this code reads no environment.
 */
export function resolveModel(model: ModelInput, providers?: ProviderSettings): LanguageModelV3 {
  if (typeof model !== 'string') {
    if ((model as { specificationVersion?: string }).specificationVersion !== 'v3') {
      throw new ModelConfigError('model must implement the AI SDK LanguageModelV3 specification', String(model));
    }
    return model;
  }
  const slash = model.indexOf('/');
  if (slash <= 0 || slash === model.length - 1) {
    throw new ModelConfigError(`model "${model}" must look like provider/model, e.g. openai/gpt-5-mini`, model);
  }
  const provider = model.slice(0, slash);
  const modelId = model.slice(slash + 1);
  switch (provider) {
    case 'openai': {
      if (!providers) return createOpenAI()(modelId);
      if (!providers.openai.apiKey) {
        throw new ModelConfigError(`model "${model}" needs OPENAI_API_KEY`, model);
      }
      return createOpenAI({ apiKey: providers.openai.apiKey, baseURL: providers.openai.baseURL })(modelId);
    }
    case 'anthropic': {
      if (!providers) return createAnthropic()(modelId);
      if (!providers.anthropic.apiKey) {
        throw new ModelConfigError(`model "${model}" needs ANTHROPIC_API_KEY`, model);
      }
      return createAnthropic({ apiKey: providers.anthropic.apiKey })(modelId);
    }
    case 'openai-compatible': {
      const { baseURL, apiKey } = providers?.openaiCompatible ?? {};
      if (!baseURL) {
        throw new ModelConfigError(`model "${model}" needs a base URL (OPENAI_COMPATIBLE_BASE_URL, or providers.openaiCompatible.baseURL)`, model);
      }
      return createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey }).chatModel(modelId);
    }
    default:
      throw new ModelConfigError(
        `unknown model provider "${provider}" in "${model}" (known: openai, anthropic, openai-compatible)`,
        model,
      );
  }
}
