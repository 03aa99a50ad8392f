import type { RunState } from './types.js';
import type { McpToolIdentity } from '../approvals/mcp-tool-name.js';
import { limitChecksFor } from '../approvals/limit-checks.js';
import { limitHitsOf, type LimitHit } from '../approvals/apply-limits.js';
import { countLimitUsage } from '../db/limit-usage.js';

/**
 * Counts this call against its tool's cumulative limits and returns those it goes over. Every
 * call that reaches the gate counts, whether it then needs approval or not, and whether that
 * approval is later given (fail closed: a declined or expired request stays counted).
 *
 * Its own statement, before the request is written: whether a request is written at all can
 * depend on the outcome (a count limit that turns on `requireApproval`), so it cannot ride on
 * the statement that writes one. Tools without limits never get here past the pure check.
 */
export async function countLimits(
  run: RunState,
  toolName: string,
  toolCallId: string,
  args: unknown,
  mcp: McpToolIdentity | undefined,
): Promise<LimitHit[] | undefined> {
  const policy = run.deps.policy;
  const checks = limitChecksFor(policy, toolName, args, run.options.requester ?? null, mcp);
  if (checks.length === 0) return undefined;
  // Limits adding up the same thing over the same window share one counter: counted once.
  const counters = new Map<string, (typeof checks)[number]>();
  for (const check of checks) counters.set(JSON.stringify([check.toolKey, check.measure, check.subject]), check);
  const totals = await countLimitUsage(run.deps.db, `${run.runId}/${toolCallId}`, [...counters.values()]);
  const byCounter = new Map(totals.map((t) => [JSON.stringify([t.toolKey, t.measure, t.subject]), t.total]));
  const limits = checks.map((c) => ({ limit: c.limit, subject: c.subject, total: byCounter.get(JSON.stringify([c.toolKey, c.measure, c.subject])) ?? 0 }));
  const entryLimits = limitsOf(policy, checks[0]!.toolKey);
  const hits = limitHitsOf(entryLimits, limits);
  if (hits.length > 0) run.log.info({ tool: toolName, hits }, 'call is over a cumulative limit');
  return hits.length > 0 ? hits : undefined;
}

function limitsOf(policy: RunState['deps']['policy'], key: string) {
  return Object.hasOwn(policy.tools, key) ? (policy.tools[key]!.limits ?? []) : [];
}
