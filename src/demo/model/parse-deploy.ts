import type { Environment } from './intent.js';
import { words } from './words.js';

const deployFiller = new Set([
  'to', 'into', 'on', 'in', 'at', 'for', 'of', 'the', 'a', 'an', 'new', 'version', 'service', 'env',
  'environment', 'please', 'now', 'me', 'it', 'and', 'then', 'build', 'release', 'app',
]);

export function environmentOf(word: string): Environment | undefined {
  if (/^(?:production|prod|prd|live)$/i.test(word)) return 'production';
  if (/^(?:staging|stage|stg)$/i.test(word)) return 'staging';
  return undefined;
}

const versionPattern = /^v?\d+(?:\.\d+)*(?:[-+][0-9A-Za-z.-]+)?$/i;

export function parseDeploy(text: string): { service?: string; environment?: Environment; version?: string } {
  let service: string | undefined;
  let environment: Environment | undefined;
  let version: string | undefined;
  for (const word of words(text)) {
    const env = environmentOf(word);
    if (env) {
      environment ??= env;
      continue;
    }
    const at = /^([A-Za-z][\w.-]*)@(\S+)$/.exec(word);
    if (at) {
      service ??= at[1];
      version ??= at[2];
      continue;
    }
    if (versionPattern.test(word)) {
      version ??= word;
      continue;
    }
    if (deployFiller.has(word.toLowerCase())) continue;
    if (!service && /^[A-Za-z][\w.-]*$/.test(word)) service = word;
  }
  return {
    ...(service ? { service } : {}),
    ...(environment ? { environment } : {}),
    ...(version ? { version } : {}),
  };
}

/** A version number if the answer has one; otherwise a one-word answer is taken as a ref (main, a sha). */
export function versionFromAnswer(answer: string): string | undefined {
  const all = words(answer);
  const numbered = all.find((w) => versionPattern.test(w));
  if (numbered) return numbered;
  const only = all.length === 1 ? all[0] : undefined;
  return only && /^[\w.\-/]+$/.test(only) ? only : undefined;
}
