import type { z } from 'zod';
import { PolicyError, type PolicyProblem } from './policy-error.js';
import { type Policy } from './policy-types.js';
import { policySchema, type PolicyInput } from './policy-schema.js';

/**
 * Validates and normalises a policy written in code. Throws `PolicyError` naming every invalid
 * field, so a typo fails at start-up instead of quietly falling back to a default.
 */
export function definePolicy(input: PolicyInput): Policy {
  const result = policySchema.safeParse(input);
  if (!result.success) throw new PolicyError(result.error.issues.flatMap(toProblems));
  return result.data;
}

function toProblems(issue: z.core.$ZodIssue): PolicyProblem[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ field: fieldName([...issue.path, key]), message: 'is not a known field' }));
  }
  const field = fieldName(issue.path);
  let message = issue.message;
  if (issue.code === 'invalid_key') {
    message = issue.issues[0]?.message ?? message;
  }
  if (field === '') message = `the policy ${message}`;
  return [{ field, message }];
}

/**
 * `tools.issue_refund.rules[0].when.op`: dotted where that is unambiguous, bracketed otherwise,
 * because tool names may themselves contain dots (`github.create_issue`).
 */
function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_][\w-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}
