import type { SharedV3ProviderOptions } from '@ai-sdk/provider';
import { z } from 'zod';
import { ModelSettingsError } from './errors.js';

/**
 * The call settings AI SDK users know (`streamText`'s), passed to the
 * provider's call options unchanged. `maxRetries` is the runtime's own: how
 * often a retryable provider error (429, 5xx, network) is retried, with
 * backoff, before the call fails (default 2, as in `ai`).
 */
export interface ModelSettings {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Extra HTTP headers for the provider request. Never stored: they often carry credentials. */
  headers?: Record<string, string | undefined>;
  maxRetries?: number;
}

/** ModelSettings and providerOptions together, as one model call takes them. */
export interface CallSettings extends ModelSettings {
  providerOptions?: SharedV3ProviderOptions;
}

// zod's numbers are finite already (no NaN or Infinity); the message says so.
const finite = z.number('must be a finite number');
const jsonObject = z.record(z.string(), z.unknown()).refine((v) => {
  try {
    return JSON.stringify(v) !== undefined;
  } catch {
    return false;
  }
}, 'must be plain JSON');

const modelSettingsSchema = z
  .object({
    temperature: finite.min(0, 'must be ≥ 0'),
    topP: finite.min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1'),
    topK: z.int('must be a whole number').min(1, 'must be ≥ 1'),
    maxOutputTokens: z.int('must be a whole number').min(1, 'must be ≥ 1'),
    stopSequences: z.array(z.string('must be strings'), 'must be an array of strings'),
    seed: z.int('must be a whole number'),
    presencePenalty: finite,
    frequencyPenalty: finite,
    headers: z.record(z.string(), z.string('must be strings').optional(), 'must be an object of strings'),
    maxRetries: z.int('must be a whole number').min(0, 'must be ≥ 0').max(10, 'must be ≤ 10'),
  })
  .partial()
  .strict();

const providerOptionsSchema = z.record(z.string(), jsonObject, 'must be an object of objects, one per provider, e.g. { openai: { … } }');

/**
 * Checks settings given to an agent or a call, so a typo or a wrong type fails
 * where it was written with a message naming the field, rather than as the
 * provider's 400 on the first message. `where` names the place (e.g.
 * "stream options").
 */
export function checkCallSettings(where: string, modelSettings: unknown, providerOptions: unknown): CallSettings | undefined {
  if (modelSettings === undefined && providerOptions === undefined) return undefined;
  const issues: string[] = [];
  const settings = modelSettingsSchema.safeParse(modelSettings ?? {});
  if (!settings.success) issues.push(...settings.error.issues.map((i) => issueText('modelSettings', i)));
  const options = providerOptionsSchema.optional().safeParse(providerOptions);
  if (!options.success) issues.push(...options.error.issues.map((i) => issueText('providerOptions', i)));
  if (issues.length) throw new ModelSettingsError(where, issues);
  return { ...settings.data, ...(options.data ? { providerOptions: options.data as SharedV3ProviderOptions } : {}) } as CallSettings;
}

function issueText(root: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `${root}: unknown setting${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
  return `${[root, ...issue.path.map(String)].join('.')}: ${issue.message}`;
}

/**
 * Layers settings: each later one overrides field by field; `headers` merge by
 * name and `providerOptions` by provider, then by option, so a call can add
 * one option without repeating the agent's.
 */
export function mergeCallSettings(...layers: Array<CallSettings | undefined>): CallSettings | undefined {
  let merged: CallSettings | undefined;
  for (const layer of layers) {
    if (!layer) continue;
    if (!merged) {
      merged = layer;
      continue;
    }
    const headers = merged.headers && layer.headers ? { ...merged.headers, ...layer.headers } : (layer.headers ?? merged.headers);
    let providerOptions = layer.providerOptions ?? merged.providerOptions;
    if (merged.providerOptions && layer.providerOptions) {
      providerOptions = { ...merged.providerOptions };
      for (const [provider, options] of Object.entries(layer.providerOptions)) {
        providerOptions[provider] = { ...providerOptions[provider], ...options };
      }
    }
    merged = { ...merged, ...layer, ...(headers ? { headers } : {}), ...(providerOptions ? { providerOptions } : {}) };
  }
  return merged;
}

/** What of a call's settings a snapshot may keep: all but the headers (see ModelSettings.headers). */
export function storableSettings(settings: CallSettings | undefined): CallSettings | undefined {
  if (!settings) return undefined;
  const { headers: _headers, ...rest } = settings;
  return Object.keys(rest).length ? rest : undefined;
}
