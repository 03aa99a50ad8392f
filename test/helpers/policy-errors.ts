import { expect } from 'vitest';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { PolicyError, type PolicyProblem } from '../../src/approvals/policy-error.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';

/**
 * The PolicyError `run` must throw: the test fails if it throws anything else, or nothing
 * ("expected `what` to throw").
 */
export function thrownPolicyError(what: string, run: () => unknown): PolicyError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return error as PolicyError;
  }
  throw new Error(`expected ${what} to throw`);
}

/** Runs definePolicy on deliberately wrong input and returns the error it must throw. */
export function policyErrorFor(input: unknown): PolicyError {
  return thrownPolicyError('definePolicy', () => definePolicy(input as PolicyInput));
}

/** Every problem definePolicy finds in deliberately wrong input (it must throw). */
export function problemsFor(input: unknown): PolicyProblem[] {
  return [...policyErrorFor(input).problems];
}

/** The same problems as `${field} ${message}` lines. */
export function problemLinesFor(input: unknown): string[] {
  return policyErrorFor(input).problems.map((p) => `${p.field} ${p.message}`);
}
