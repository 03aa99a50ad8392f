import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { definePolicy } from './define-policy.js';
import { PolicyError } from './policy-error.js';
import type { Policy } from './policy-types.js';
import type { PolicyInput } from './policy-schema.js';
import { errorMessage } from '../error-message.js';

/**
 * Reads a policy from `.yaml`, `.yml` or `.json`. Synchronous on purpose: it runs once at
 * start-up, and the bot must not accept work before its policy is known.
 *
 * YAML is parsed as YAML 1.2, so `yes`/`no`/`on` stay strings and are rejected where a boolean
 * is expected instead of silently meaning true or false; duplicate keys are an error.
 */
export function loadPolicyFile(path: string): Policy {
  const format = formatOf(path);
  if (format === undefined) {
    throw new PolicyError([{ field: '', message: `unsupported file type "${extname(path)}" (use .yaml, .yml or .json)` }], {
      file: path,
    });
  }

  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = code === 'ENOENT' ? 'file not found' : `file could not be read (${errorMessage(error)})`;
    throw new PolicyError([{ field: '', message }], { file: path, cause: error });
  }

  let data: unknown;
  try {
    data = format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    const message = `${format === 'json' ? 'JSON' : 'YAML'} syntax error: ${errorMessage(error)}`;
    throw new PolicyError([{ field: '', message }], { file: path, cause: error });
  }

  if (data === null || data === undefined) {
    // An empty file is far more likely a deployment mistake than a wish for the built-in defaults.
    throw new PolicyError([{ field: '', message: 'file is empty (write "{}" to use only the built-in defaults)' }], {
      file: path,
    });
  }

  try {
    // definePolicy validates everything; the cast only admits that the file's shape is unknown yet.
    return definePolicy(data as PolicyInput);
  } catch (error) {
    if (error instanceof PolicyError) throw new PolicyError(error.problems, { file: path, cause: error });
    throw error;
  }
}

function formatOf(path: string): 'yaml' | 'json' | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.json') return 'json';
  return undefined;
}
