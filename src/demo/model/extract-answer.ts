import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { EXTRACTION_INSTRUCTION } from '../../agent/extraction-prompt.js';
import { asRecord, parseMaybeJson } from './json-values.js';
import { environmentOf } from './parse-deploy.js';
import { normalise, textOf, words } from './words.js';

/** The runtime's auto-resume asking its model to read a reply (src/agent/extraction-prompt.ts). */
interface ExtractionRequest {
  schema: Record<string, unknown>;
  question: Record<string, unknown> | undefined;
  text: string;
}

export function extractionRequest(prompt: LanguageModelV3Prompt): ExtractionRequest | undefined {
  const system = prompt.find((m) => m.role === 'system');
  if (!system || system.role !== 'system' || !system.content.startsWith(EXTRACTION_INSTRUCTION)) return undefined;
  const schema = asRecord(parseMaybeJson(/^Schema: (.*)$/m.exec(system.content)?.[1] ?? ''));
  if (!schema) return undefined;
  const question = asRecord(parseMaybeJson(/^Question: (.*)$/m.exec(system.content)?.[1] ?? ''));
  const user = [...prompt].reverse().find((m) => m.role === 'user');
  return { schema, question, text: user?.role === 'user' ? normalise(textOf(user)) : '' };
}

const affirmative = /\b(?:yes|yeah|yep|yup|sure|ok|okay|confirm(?:ed)?|go ahead|go for it|do it|ship it|approved?|proceed|please do)\b/i;
const negative = /\b(?:no|nope|cancel|stop|abort|don'?t|do not|hold off|never ?mind)\b/i;

/**
 * Reads a free-text reply the way a model would, for the cases the runtime's own
 * readings miss ("production please", "abc-123 and ghi-789", "sure, go ahead").
 * A reply it cannot place is answered in words, which the runtime rejects as not
 * JSON, so the question stays open instead of being answered with a guess.
 */
export function extractAnswer({ schema, question, text }: ExtractionRequest): string {
  const cannot = 'I could not tell which answer that is.';
  const properties = asRecord(schema.properties);
  const keys = properties ? Object.keys(properties) : [];
  if (schema.type === 'object' && keys.length === 1 && asRecord(properties?.[keys[0]!])?.type === 'boolean') {
    const yes = affirmative.test(text);
    const no = negative.test(text);
    return yes === no ? cannot : JSON.stringify({ [keys[0]!]: yes });
  }
  const labels = (Array.isArray(question?.options) ? question.options : [])
    .map((o) => asRecord(o)?.label)
    .filter((l): l is string => typeof l === 'string');
  if (schema.type === 'array') {
    const chosen = /\b(?:all|every|each|everything)\b/i.test(text) ? labels : labelsIn(text, labels);
    return chosen.length ? JSON.stringify(chosen) : cannot;
  }
  if (schema.type === 'string') {
    if (!labels.length) return text ? JSON.stringify(text) : cannot;
    const chosen = labelsIn(text, labels);
    return chosen.length === 1 ? JSON.stringify(chosen[0]) : cannot;
  }
  return cannot;
}

/** Labels named in the text, or failing that, their numbers ("1 and 3"), in the options' order. */
function labelsIn(text: string, labels: string[]): string[] {
  const named = labels.filter((label) => {
    const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'i').test(text)) return true;
    // "prod" for production, "stage" for staging: what people type in a hurry.
    const env = environmentOf(label);
    return env !== undefined && words(text).some((w) => environmentOf(w) === env);
  });
  if (named.length) return named;
  const numbers = new Set((text.match(/\b\d+\b/g) ?? []).map(Number));
  return labels.filter((_, i) => numbers.has(i + 1));
}
