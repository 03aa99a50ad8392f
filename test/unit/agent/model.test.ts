import { describe, expect, it } from 'vitest';
import { resolveModel, useProviders } from '../../../src/agent/model.js';
import { Agent } from '../../../src/agent/agent.js';
import { ModelConfigError } from '../../../src/agent/errors.js';
import { scriptedModel } from '../../helpers/scripted-model.js';

const none = { openai: {}, anthropic: {}, openaiCompatible: {} };
const keys = {
  openai: { apiKey: 'sk-test' },
  anthropic: { apiKey: 'sk-ant-test' },
  openaiCompatible: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k' },
};

describe('model resolution', () => {
  it.each([
    ['openai/gpt-5-mini', 'openai.responses'],
    ['openai.chat/gpt-4.1-mini', 'openai.chat'],
    ['anthropic/claude-sonnet-4-5', 'anthropic.messages'],
    ['openai-compatible/llama-3', 'openai-compatible.chat'],
  ])('%s resolves with its key', (model, provider) => {
    const resolved = resolveModel(model, keys);
    expect(resolved.specificationVersion).toBe('v3');
    expect(resolved.provider).toBe(provider);
  });

  it.each([
    ['openai/gpt-5-mini', /OPENAI_API_KEY/],
    ['openai.chat/gpt-4.1-mini', /OPENAI_API_KEY/],
    ['anthropic/claude-sonnet-4-5', /ANTHROPIC_API_KEY/],
    ['openai-compatible/x', /OPENAI_COMPATIBLE_BASE_URL/],
    ['mistral/large', /unknown model provider "mistral"/],
    ['gpt-5', /provider\/model/],
  ])('%s without what it needs fails at construction', (model, message) => {
    expect(() => resolveModel(model, none)).toThrow(message);
    expect(() => new Agent({ id: 'a', model, providers: none })).toThrow(ModelConfigError);
  });

  it('a string without settings waits for its host\'s providers, and fails there naming what is missing', () => {
    const waiting = resolveModel('openai-compatible/llama-3');
    expect({ provider: waiting.provider, modelId: waiting.modelId }).toEqual({ provider: 'openai-compatible.chat', modelId: 'llama-3' });
    expect(() => useProviders(waiting, none)).toThrow(/OPENAI_COMPATIBLE_BASE_URL/);
    expect(useProviders(waiting, keys)).toBe(true);
    // A model given its settings (or an object) is left alone.
    expect(useProviders(resolveModel('openai/gpt-5-mini', keys), none)).toBe(false);
    expect(useProviders(scriptedModel([{ text: 'hi' }]), none)).toBe(false);
    expect(() => resolveModel('mistral/large')).toThrow(/unknown model provider "mistral"/);
  });

  it('accepts a LanguageModelV3 object as is', () => {
    const model = scriptedModel([{ text: 'hi' }]);
    expect(resolveModel(model, none)).toBe(model);
  });
});

describe('a library user’s Agent', () => {
  it('is constructed from a provider/model string whatever else the environment holds (no configuration is read)', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const script = `import { Agent } from './src/agent/agent.js';
      const agent = new Agent({ id: 'lib', model: 'openai/gpt-5-mini' });
      console.log(agent.model.provider);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      // Values the bot's own configuration would refuse: a library user's Agent must not care.
      env: { ...process.env, PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://elsewhere', OPENAI_API_KEY: 'sk-from-the-environment' },
      timeout: 60_000,
    });
    expect(stdout.trim()).toMatch(/^openai/);
  }, 90_000);
});
