import { isActionId } from '../../db/is-action-id.js';

/**
 * Button values: the pending action id, plus a fingerprint prefix on approval buttons so a click
 * on a stale card (arguments since changed) can be recognised and refused.
 */
export const FINGERPRINT_PREFIX_LENGTH = 16;
const FINGERPRINT_PREFIX = new RegExp(`^[0-9a-f]{${FINGERPRINT_PREFIX_LENGTH}}$`);

export function approvalButtonValue(actionId: number, fingerprint: string): string {
  return JSON.stringify({ a: actionId, f: fingerprint.slice(0, FINGERPRINT_PREFIX_LENGTH) });
}

export function actionButtonValue(actionId: number): string {
  return JSON.stringify({ a: actionId });
}

export interface ButtonValue {
  actionId: number;
  fingerprintPrefix?: string;
}

/** Parses a button value (or a modal's private_metadata); undefined for anything malformed. */
export function parseButtonValue(value: string | undefined | null): ButtonValue | undefined {
  if (typeof value !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { a, f } = parsed as { a?: unknown; f?: unknown };
  if (!isActionId(a)) return undefined;
  // Every approval button carries exactly this much of a SHA-256 hex digest; an empty or short
  // prefix would match any request's fingerprint.
  if (f !== undefined && (typeof f !== 'string' || !FINGERPRINT_PREFIX.test(f))) return undefined;
  return f === undefined ? { actionId: a } : { actionId: a, fingerprintPrefix: f };
}
