import type { Requirement } from './requirement-for.js';

/**
 * Whether a request made at `createdAt` has escalated by `now`: derived from the request's age
 * and the policy, never stored, so every instance agrees and a restart changes nothing.
 */
export function isEscalated(requirement: Pick<Requirement, 'reach'>, createdAt: Date, now: Date): boolean {
  const after = requirement.reach.escalateAfterMs;
  return after !== undefined && requirement.reach.escalateTo.length > 0 && now.getTime() - createdAt.getTime() >= after;
}

/**
 * Who may decide the request at `now`: the policy's approvers, joined by its `escalateTo` once
 * the request has waited `escalateAfter`. Empty approvers (anyone may decide) stay empty: an
 * escalation cannot narrow who may decide.
 */
export function approversAt(requirement: Pick<Requirement, 'approvers' | 'reach'>, createdAt: Date, now: Date): string[] {
  if (requirement.approvers.length === 0 || !isEscalated(requirement, createdAt, now)) return [...requirement.approvers];
  return [...new Set([...requirement.approvers, ...requirement.reach.escalateTo])].sort();
}
