import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { Config } from '../config.js';
import { ModelConfigError } from './errors.js';

export type ProviderSettings = Config['providers'];
export type ModelInput = LanguageModelV3 | string;

/**
 * The providers a `provider/model` string may name. `openai` is OpenAI's Responses API (what the
 * AI SDK's `openai(model)` calls); `openai.chat` is its Chat Completions API, for gateways that
 * speak only that; `openai-compatible` is any other server speaking Chat Completions.
 */
const PROVIDERS = ['openai', 'openai.chat', 'anthropic', 'openai-compatible'] as const;
type ProviderName = (typeof PROVIDERS)[number];

/** The AI SDK's name for each provider's model, known before the model is built (labels, spans, errors). */
const SDK_PROVIDER: Record<ProviderName, string> = {
  openai: 'openai.responses',
  'openai.chat': 'openai.chat',
  anthropic: 'anthropic.messages',
  'openai-compatible': 'openai-compatible.chat',
};

/**
 * Marks a model made from a string without provider settings. A registered symbol, so that a host
 * finds it on the models of an agents module that loaded another copy of this package (its CommonJS
 * build, or the built one while the bot runs from source).
 */
const FROM_STRING = Symbol.for('slack-approval-bot.model-from-string');

interface StringModelHandle {
  /** The `provider/model` string the model was made from. */
  readonly spec: string;
  /** Builds the provider's model now with these settings; throws ModelConfigError naming what is missing. */
  useProviders(providers: ProviderSettings): void;
}

/**
 * Turns `provider/model` into a model object. A malformed string or an unknown provider fails
 * at once. With `providers`, the provider's model is built at once too, so a missing key fails
 * when the agent is defined rather than on the first message someone sends in Slack.
 *
 * Without `providers` (an agent defined in a module before anything is configured), the model
 * waits for its host: the bot gives it the configured providers at start-up (useProviders), and a
 * missing key stops start-up there. A model no host configures is built on its first call with
 * the AI SDK's defaults, which read the provider's own variables (OPENAI_API_KEY, …); this code
 * reads no environment.
 */
export function resolveModel(model: ModelInput, providers?: ProviderSettings): LanguageModelV3 {
  if (typeof model !== 'string') {
    if ((model as { specificationVersion?: string }).specificationVersion !== 'v3') {
      throw new ModelConfigError('model must implement the AI SDK LanguageModelV3 specification', String(model));
    }
    return model;
  }
  const { provider, modelId } = parseModelString(model);
  return providers ? buildModel(model, provider, modelId, providers) : modelWaitingForProviders(model, provider, modelId);
}

/**
 * Gives a model made from a string without settings (see resolveModel) the host's providers,
 * building it now: throws ModelConfigError naming the missing variable. Any other model is left
 * as it is (it was given its settings, or it is an object) and false is returned.
 */
export function useProviders(model: LanguageModelV3, providers: ProviderSettings): boolean {
  const handle = (model as unknown as { [FROM_STRING]?: StringModelHandle })[FROM_STRING];
  if (!handle) return false;
  handle.useProviders(providers);
  return true;
}

function parseModelString(model: string): { provider: ProviderName; modelId: string } {
  const slash = model.indexOf('/');
  if (slash <= 0 || slash === model.length - 1) {
    throw new ModelConfigError(`model "${model}" must look like provider/model, e.g. openai/gpt-5-mini`, model);
  }
  const provider = model.slice(0, slash);
  if (!(PROVIDERS as readonly string[]).includes(provider)) {
    throw new ModelConfigError(`unknown model provider "${provider}" in "${model}" (known: ${PROVIDERS.join(', ')})`, model);
  }
  return { provider: provider as ProviderName, modelId: model.slice(slash + 1) };
}

function buildModel(model: string, provider: ProviderName, modelId: string, providers: ProviderSettings): LanguageModelV3 {
  switch (provider) {
    case 'openai':
    case 'openai.chat': {
      if (!providers.openai.apiKey) throw new ModelConfigError(`model "${model}" needs OPENAI_API_KEY`, model);
      const openai = createOpenAI({ apiKey: providers.openai.apiKey, baseURL: providers.openai.baseURL });
      return provider === 'openai' ? openai(modelId) : openai.chat(modelId);
    }
    case 'anthropic': {
      if (!providers.anthropic.apiKey) throw new ModelConfigError(`model "${model}" needs ANTHROPIC_API_KEY`, model);
      return createAnthropic({ apiKey: providers.anthropic.apiKey, baseURL: providers.anthropic.baseURL })(modelId);
    }
    case 'openai-compatible': {
      const { baseURL, apiKey } = providers.openaiCompatible;
      if (!baseURL) {
        throw new ModelConfigError(`model "${model}" needs a base URL (OPENAI_COMPATIBLE_BASE_URL, or providers.openaiCompatible.baseURL)`, model);
      }
      return createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey }).chatModel(modelId);
    }
    default:
      return unknownProvider(provider);
  }
}

/** The AI SDK's own defaults, for a model no host gave settings to. */
function defaultModel(model: string, provider: ProviderName, modelId: string): LanguageModelV3 {
  switch (provider) {
    case 'openai':
      return createOpenAI()(modelId);
    case 'openai.chat':
      return createOpenAI().chat(modelId);
    case 'anthropic':
      return createAnthropic()(modelId);
    case 'openai-compatible':
      throw new ModelConfigError(`model "${model}" needs a base URL (OPENAI_COMPATIBLE_BASE_URL, or providers.openaiCompatible.baseURL)`, model);
    default:
      return unknownProvider(provider);
  }
}

function unknownProvider(provider: never): never {
  throw new Error(`unhandled model provider ${String(provider)}`);
}

/** A model that is built once it is given providers, or on its first call with the SDK's defaults. */
function modelWaitingForProviders(model: string, provider: ProviderName, modelId: string): LanguageModelV3 {
  let built: LanguageModelV3 | undefined;
  const target = () => (built ??= defaultModel(model, provider, modelId));
  const handle: StringModelHandle = {
    spec: model,
    useProviders(providers) {
      built = buildModel(model, provider, modelId, providers);
    },
  };
  return {
    specificationVersion: 'v3',
    provider: SDK_PROVIDER[provider],
    modelId,
    get supportedUrls() {
      return target().supportedUrls;
    },
    doGenerate: (options: LanguageModelV3CallOptions) => target().doGenerate(options),
    doStream: (options: LanguageModelV3CallOptions) => target().doStream(options),
    [FROM_STRING]: handle,
  } as LanguageModelV3;
}
