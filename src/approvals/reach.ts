import type { ApprovalSettings, NotifyMode, Route } from './policy-types.js';

/** How a request reaches its approvers, with every default filled in. */
export interface Reach {
  notify: NotifyMode;
  route: Route;
  /** At most this many members of a user group get a DM copy. */
  dmLimit: number;
  /** Undefined: no reminders. */
  remindAfterMs?: number;
  remindLimit: number;
  /** The last warning goes out this long before the request expires. */
  warnBeforeMs: number;
  /** Undefined: no escalation. */
  escalateAfterMs?: number;
  escalateTo: string[];
}

const DEFAULT_DM_LIMIT = 10;
const DEFAULT_REMIND_LIMIT = 3;
const DEFAULT_WARN_MS = 15 * 60_000;

/**
 * The reach of resolved settings. The last warning defaults to 15 minutes before expiry, or a
 * tenth of the time a request waits when that is shorter (a 30-minute request warns at 27).
 */
export function reachOf(settings: ApprovalSettings): Reach {
  return {
    notify: settings.notify ?? 'mentions',
    route: settings.route ?? 'thread',
    dmLimit: settings.dmLimit ?? DEFAULT_DM_LIMIT,
    ...(settings.remindAfterMs !== undefined ? { remindAfterMs: settings.remindAfterMs } : {}),
    remindLimit: settings.remindLimit ?? DEFAULT_REMIND_LIMIT,
    warnBeforeMs: settings.warnBeforeMs ?? Math.min(DEFAULT_WARN_MS, Math.floor(settings.expiresInMs / 10)),
    ...(settings.escalateAfterMs !== undefined ? { escalateAfterMs: settings.escalateAfterMs } : {}),
    escalateTo: [...(settings.escalateTo ?? [])],
  };
}
