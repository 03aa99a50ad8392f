import { describe, expect, it } from 'vitest';
import { checkCallSettings, mergeCallSettings, storableSettings } from '../../../src/agent/model-settings.js';
import { ModelSettingsError } from '../../../src/agent/errors.js';

describe('call settings', () => {
  it('merges field by field, headers by name and providerOptions by provider then option', () => {
    const merged = mergeCallSettings(
      { temperature: 0.2, maxOutputTokens: 100, headers: { a: '1', b: '1' }, providerOptions: { openai: { store: false, user: 'x' } } },
      undefined,
      { temperature: 0, headers: { b: '2' }, providerOptions: { openai: { user: 'y' }, anthropic: { sendReasoning: true } } },
    );
    expect(merged).toEqual({
      temperature: 0,
      maxOutputTokens: 100,
      headers: { a: '1', b: '2' },
      providerOptions: { openai: { store: false, user: 'y' }, anthropic: { sendReasoning: true } },
    });
    expect(mergeCallSettings(undefined, undefined)).toBeUndefined();
  });

  it('keeps no headers in what may be stored', () => {
    expect(storableSettings({ temperature: 1, headers: { authorization: 'Bearer s' } })).toEqual({ temperature: 1 });
    expect(storableSettings({ headers: { authorization: 'Bearer s' } })).toBeUndefined();
  });

  it('accepts what AI SDK accepts and names every bad field', () => {
    expect(checkCallSettings('here', undefined, undefined)).toBeUndefined();
    expect(checkCallSettings('here', { temperature: 1.5, seed: -3, stopSequences: [] }, { openai: {} })).toEqual({ temperature: 1.5, seed: -3, stopSequences: [], providerOptions: { openai: {} } });
    const error = (() => {
      try {
        checkCallSettings('stream options', { temperature: Infinity, topK: 0, maxRetries: 1.5, extra: 1 }, []);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ModelSettingsError);
    expect((error as ModelSettingsError).issues).toEqual([
      'modelSettings.temperature: must be a finite number',
      'modelSettings.topK: must be ≥ 1',
      'modelSettings.maxRetries: must be a whole number',
      'modelSettings: unknown setting extra',
      'providerOptions: must be an object of objects, one per provider, e.g. { openai: { … } }',
    ]);
  });
});
