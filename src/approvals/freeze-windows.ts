import { CronExpressionParser } from 'cron-parser';
import type { Freeze, Policy } from './policy-types.js';
import { policyKeysFor, type McpToolIdentity } from './mcp-tool-name.js';

/** A freeze in force for a call: which one, and until when (absent: no end within a year of windows). */
export interface FreezeInForce {
  /** Its position in the policy's `freezes`. */
  index: number;
  name: string;
  /** ISO instant the freeze stops applying (the end of back-to-back windows counted as one). */
  until?: string;
}

/** Windows that follow each other without a gap are one freeze; past this many, it has no end in sight. */
const MAX_CHAINED_WINDOWS = 1000;

/** Why a time zone cannot be used, or undefined when it can (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function timeZoneProblem(timeZone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return undefined;
  } catch {
    return `must be an IANA time zone such as "UTC" or "Europe/Berlin", got ${JSON.stringify(timeZone)}`;
  }
}

/** Why a cron expression cannot be used (it does not parse, or never fires), or undefined when it can. */
export function cronProblem(every: string, timeZone: string): string | undefined {
  try {
    CronExpressionParser.parse(every, { tz: timeZone, currentDate: new Date(0) }).next();
    return undefined;
  } catch (error) {
    return `must be a cron expression like "0 18 * * 5" (minute hour day-of-month month day-of-week): ${(error as Error).message}`;
  }
}

/** Whether `freeze` covers calls of this tool: by its name, by an MCP pattern of its server, or `*`. */
export function freezeCovers(freeze: Freeze, toolName: string, mcp?: McpToolIdentity): boolean {
  if (freeze.tools.includes('*') || freeze.tools.includes(toolName)) return true;
  return mcp !== undefined && policyKeysFor(mcp).some((key) => freeze.tools.includes(key));
}

/**
 * Whether a window of `freeze` is in force at `at`, and until when. A recurring freeze is in force
 * when its latest start at or before `at` is less than its duration ago (a later start can only end
 * later, so no earlier one can cover `at` when the latest does not); its end runs on through every
 * window that starts before the one in force ends.
 */
export function freezeWindowAt(freeze: Freeze, at: Date): { until: Date | undefined } | undefined {
  const t = at.getTime();
  if (freeze.from !== undefined && freeze.to !== undefined) {
    const from = Date.parse(freeze.from);
    const to = Date.parse(freeze.to);
    return t >= from && t < to ? { until: new Date(to) } : undefined;
  }
  if (!isRecurring(freeze)) return undefined;
  const tz = freeze.timeZone ?? 'UTC';
  // prev() is strictly before its current date: a window starting exactly at `at` is in force.
  const starts = CronExpressionParser.parse(freeze.every, { tz, currentDate: new Date(t + 1) });
  let start: number;
  try {
    start = starts.prev().getTime();
  } catch {
    return undefined;
  }
  if (start + freeze.forMs <= t) return undefined;
  const until = chainedEnd(freeze, start);
  return { until: until === undefined ? undefined : new Date(until) };
}

/** Ends already worked out, by freeze and window start: a window's end never changes, and cards ask often. */
const ends = new WeakMap<Freeze, Map<number, number | undefined>>();

/** Where the windows chained from the one starting at `start` end; undefined when they do not within MAX_CHAINED_WINDOWS. */
function chainedEnd(freeze: Freeze & { every: string; forMs: number }, start: number): number | undefined {
  let known = ends.get(freeze);
  if (!known) ends.set(freeze, (known = new Map()));
  if (known.has(start)) return known.get(start);
  const following = CronExpressionParser.parse(freeze.every, { tz: freeze.timeZone ?? 'UTC', currentDate: new Date(start) });
  let until: number | undefined = start + freeze.forMs;
  for (let i = 0; ; i++) {
    if (i === MAX_CHAINED_WINDOWS) {
      until = undefined;
      break;
    }
    const next = following.next().getTime();
    if (next > until) break;
    until = Math.max(until, next + freeze.forMs);
  }
  // A handful of starts per freeze is all a running bot sees; the map is not allowed to grow past that.
  if (known.size >= 64) known.clear();
  known.set(start, until);
  return until;
}

function isRecurring(freeze: Freeze): freeze is Freeze & { every: string; forMs: number } {
  return freeze.every !== undefined && freeze.forMs !== undefined;
}

/** The policy's freezes in force for this call at `at`, in the policy's order. */
export function freezesInForce(policy: Pick<Policy, 'freezes'>, toolName: string, mcp: McpToolIdentity | undefined, at: Date): FreezeInForce[] {
  const out: FreezeInForce[] = [];
  for (const [index, freeze] of (policy.freezes ?? []).entries()) {
    if (!freezeCovers(freeze, toolName, mcp)) continue;
    const window = freezeWindowAt(freeze, at);
    if (window) out.push({ index, name: freeze.name, ...(window.until ? { until: window.until.toISOString() } : {}) });
  }
  return out;
}

/**
 * The version a call's request, approvals and grants are bound to: the policy's, with the
 * freezes in force for the call appended (`ops@1a2b…+freeze:holidays`). A freeze changes what a
 * call needs without changing the policy, so a request or approval made before it (or during it)
 * is asked again under the requirement in force, exactly as after a change of policy.
 */
export function effectiveVersion(version: string, freezes: readonly FreezeInForce[]): string {
  return freezes.length === 0 ? version : `${version}+freeze:${freezes.map((f) => f.name).join(',')}`;
}
