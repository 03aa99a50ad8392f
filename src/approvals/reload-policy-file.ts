import { loadPolicyFile } from './load-policy-file.js';
import { PolicyError } from './policy-error.js';
import type { Policy } from './policy-types.js';

export type PolicyReload =
  /** The file says something else now: `policy` is to be used for new requests. */
  | { outcome: 'changed'; policy: Policy; from: string; to: string }
  /** The file decides the same as the policy in force (rewritten, reformatted, touched). */
  | { outcome: 'unchanged'; version: string }
  /** The file cannot be used; the policy in force stays. */
  | { outcome: 'invalid'; error: PolicyError; kept: string };

/**
 * Reads the policy file again and says what to do with it, without doing it: the caller swaps
 * the policy in only on `changed`. The version is derived from what the policy decides, so a
 * file saved without a change of meaning is `unchanged`, and outstanding requests and grants,
 * each bound to the version it was made under, are unaffected by a reload either way.
 */
export function reloadPolicyFile(path: string, current: Policy): PolicyReload {
  let next: Policy;
  try {
    next = loadPolicyFile(path);
  } catch (error) {
    if (error instanceof PolicyError) return { outcome: 'invalid', error, kept: current.version };
    throw error;
  }
  if (next.version === current.version) return { outcome: 'unchanged', version: current.version };
  return { outcome: 'changed', policy: next, from: current.version, to: next.version };
}
