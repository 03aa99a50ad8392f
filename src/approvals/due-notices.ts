import type { Reach } from './reach.js';

/** `remind:<n>` (the nth reminder), `warn` (the last warning before expiry), `escalate`. */
export type NoticeName = `remind:${number}` | 'warn' | 'escalate';

interface NoticeClock {
  createdAt: Date;
  expiresAt: Date;
  /** Notices already claimed for the request (sent, or being sent by another instance). */
  sent: ReadonlySet<string>;
  now: Date;
}

/**
 * The notices due for a waiting request now and not yet sent. Times come from the request's age
 * and the policy, so nothing about them is kept per request until one is due:
 * - the nth reminder at `remindAfter × n`, up to `remindLimit`; after a pause (no sweep ran for a
 *   while) only the latest due reminder goes out, never a burst of missed ones, and none once the
 *   last warning is due (it says more);
 * - the last warning at `warnBefore` before expiry;
 * - the escalation at `escalateAfter`.
 * Nothing is due once the request has expired: the expiry tells the requester instead.
 */
export function dueNotices(reach: Reach, clock: NoticeClock): NoticeName[] {
  const now = clock.now.getTime();
  const created = clock.createdAt.getTime();
  const expires = clock.expiresAt.getTime();
  if (!(now < expires)) return [];
  const due: NoticeName[] = [];
  if (reach.escalateAfterMs !== undefined && reach.escalateTo.length > 0 && now - created >= reach.escalateAfterMs && !clock.sent.has('escalate')) {
    due.push('escalate');
  }
  const warnDue = reach.warnBeforeMs > 0 && now >= expires - reach.warnBeforeMs;
  if (warnDue) {
    if (!clock.sent.has('warn')) due.push('warn');
  } else if (reach.remindAfterMs !== undefined) {
    const n = Math.min(reach.remindLimit, Math.floor((now - created) / reach.remindAfterMs));
    const latestSent = [...clock.sent].filter((s) => s.startsWith('remind:')).map((s) => Number(s.slice(7))).reduce((a, b) => Math.max(a, b), 0);
    if (n >= 1 && n > latestSent) due.push(`remind:${n}`);
  }
  return due;
}
