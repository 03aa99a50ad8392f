import type { ApprovalSettings, CumulativeLimit } from './policy-types.js';

/**
 * A cumulative limit one call went over, as stored with its request (pending_actions.limit_hits)
 * and in the `requested` audit event: which limit of the tool's entry, what it adds up, and the
 * window's total with this call included.
 */
export interface LimitHit {
  /** The limit's position in the entry's `limits`. */
  limit: number;
  /** The argument path summed; absent for a count. */
  sum?: string;
  count?: true;
  by?: 'requester';
  /** Whose total it is when `by: requester` (`''` for calls without a requester). */
  requester?: string;
  total: number;
  above: number;
  overMs: number;
}

/** One limit's window total after this call was counted (see limit-checks.ts and db/limit-usage.ts). */
interface LimitTotal {
  limit: number;
  total: number;
  subject: string;
}

/** The limits whose window total, this call included, is above their `above`. */
export function limitHitsOf(limits: readonly CumulativeLimit[], totals: readonly LimitTotal[]): LimitHit[] {
  const hits: LimitHit[] = [];
  for (const { limit: index, total, subject } of totals) {
    const limit = limits[index];
    if (limit === undefined || !(total > limit.above)) continue;
    hits.push({
      limit: index,
      ...(limit.sum !== undefined ? { sum: limit.sum } : { count: true as const }),
      ...(limit.by !== undefined ? { by: limit.by, requester: subject } : {}),
      total,
      above: limit.above,
      overMs: limit.overMs,
    });
  }
  return hits.sort((a, b) => a.limit - b.limit);
}

/**
 * Each hit limit's `then` over the settings the rules left, in the entry's order, as a rule's
 * would be, except that a limit only tightens (see tighten). Hits read back from a request name
 * limits by position; one the current entry does not have (the policy changed, and with it the
 * version, so the request is asked again anyway) is skipped. `onEach` hears of each limit applied.
 */
export function overlayLimitHits(
  settings: ApprovalSettings,
  limits: readonly CumulativeLimit[] | undefined,
  hits: readonly LimitHit[],
  onEach?: (index: number, limit: CumulativeLimit) => void,
): ApprovalSettings {
  if (limits === undefined || hits.length === 0) return settings;
  let out = settings;
  for (const index of [...new Set(hits.map((h) => h.limit))].sort((a, b) => a - b)) {
    const limit = limits[index];
    if (limit === undefined) continue;
    out = tighten(out, limit.then);
    onEach?.(index, limit);
  }
  return out;
}

/**
 * `then` of a layer that only tightens (a limit gone over, a freeze in force) over `before`: the
 * call always needs approval (a `then: { quorum: 2 }` on a tool that otherwise runs unasked means
 * "ask two people", not nothing), its quorum is never lowered and self-approval never turned
 * back on; a deny stays a deny.
 */
export function tighten(before: ApprovalSettings, then: Readonly<Partial<ApprovalSettings>>): ApprovalSettings {
  return {
    ...before,
    ...then,
    requireApproval: true,
    quorum: Math.max(before.quorum, then.quorum ?? before.quorum),
    allowSelfApproval: before.allowSelfApproval && (then.allowSelfApproval ?? true),
    ...(before.deny !== undefined && then.deny === undefined ? { deny: before.deny } : {}),
  };
}

/** Hits as read from a stored row: anything not shaped like a hit is ignored, never trusted. */
export function limitHitsFromRow(value: unknown): LimitHit[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (h): h is LimitHit =>
      h !== null &&
      typeof h === 'object' &&
      Number.isInteger((h as LimitHit).limit) &&
      typeof (h as LimitHit).total === 'number' &&
      typeof (h as LimitHit).above === 'number' &&
      typeof (h as LimitHit).overMs === 'number',
  );
}
