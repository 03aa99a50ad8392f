import type { LanguageModelV3 } from '@ai-sdk/provider';
import { ModelConfigError } from './errors.js';

/**
 * Stands in where no MODEL is configured, so agents can still be built (their
 * stored runs listed, their audit read) while any attempt to think fails loudly
 * with what to set, instead of pretending to answer.
 */
export function unconfiguredModel(): LanguageModelV3 {
  const fail = async (): Promise<never> => {
    throw new ModelConfigError('no model is configured: set MODEL (e.g. openai/gpt-5-mini) and its API key', 'unset');
  };
  return {
    specificationVersion: 'v3',
    provider: 'unconfigured',
    modelId: 'unconfigured',
    supportedUrls: {},
    doGenerate: fail,
    doStream: fail,
  };
}
