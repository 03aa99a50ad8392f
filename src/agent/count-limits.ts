import type { Policy } from '../approvals/policy-types.js';
import type { McpToolIdentity } from '../approvals/mcp-tool-name.js';
import { limitChecksFor, type LimitCheck } from '../approvals/limit-checks.js';
import { limitHitsOf, type LimitHit } from '../approvals/apply-limits.js';
import { countLimitUsage, previewRecount, type CounterKey, type Recount, type UsageCount, type UsageTotal } from '../db/limit-usage.js';
import type { Db } from '../db/database.js';
import type { RunState } from './run-model.js';

/** The counters one call of a tool with cumulative limits adds to, and how their totals become hits. */
interface LimitCount {
  /** Each counter once: limits adding up the same thing over the same window share one. */
  counters: UsageCount[];
  checks: LimitCheck[];
  hitsOf(totals: readonly UsageTotal[]): LimitHit[];
  above(check: LimitCheck): number;
}

const keyOf = (c: CounterKey) => JSON.stringify([c.toolKey, c.measure, c.subject]);

/** Undefined for a tool without limits (the common case: nothing is counted, no statement spent). */
function limitCountOf(policy: Policy, toolName: string, args: unknown, requester: string | null, mcp: McpToolIdentity | undefined): LimitCount | undefined {
  const checks = limitChecksFor(policy, toolName, args, requester, mcp);
  if (checks.length === 0) return undefined;
  const counters = new Map<string, LimitCheck>();
  for (const check of checks) counters.set(keyOf(check), check);
  const key = checks[0]!.toolKey;
  const entryLimits = Object.hasOwn(policy.tools, key) ? (policy.tools[key]!.limits ?? []) : [];
  return {
    counters: [...counters.values()],
    checks,
    hitsOf: (totals) => {
      const byCounter = new Map(totals.map((t) => [keyOf(t), t.total]));
      return limitHitsOf(entryLimits, checks.map((c) => ({ limit: c.limit, subject: c.subject, total: byCounter.get(keyOf(c)) ?? 0 })));
    },
    above: (check) => entryLimits[check.limit]?.above ?? Number.POSITIVE_INFINITY,
  };
}

/** The limits a call went over, under the policy in force and under the shadow policy (when there is one). */
interface CountedLimits {
  hits?: LimitHit[];
  shadowHits?: LimitHit[];
}

/**
 * Counts this call against its tool's cumulative limits and returns those it goes over. Every
 * call that reaches the gate counts, whether it then needs approval or not, and whether that
 * approval is later given (fail closed: a declined or expired request stays counted).
 *
 * Its own statement, before the request is written: whether a request is written at all can
 * depend on the outcome (a count limit that turns on `requireApproval`), so it cannot ride on
 * the statement that writes one. Tools without limits never get here past the pure check. The
 * shadow policy's limits are counted in the same statement (a counter both define is one counter).
 */
export async function countLimits(
  run: RunState,
  toolName: string,
  toolCallId: string,
  args: unknown,
  mcp: McpToolIdentity | undefined,
): Promise<CountedLimits> {
  const requester = run.options.requester ?? null;
  const count = limitCountOf(run.deps.policy, toolName, args, requester, mcp);
  const shadow = run.deps.shadowPolicy ? limitCountOf(run.deps.shadowPolicy, toolName, args, requester, mcp) : undefined;
  if (!count && !shadow) return {};
  const counters = new Map<string, UsageCount>();
  for (const c of [...(count?.counters ?? []), ...(shadow?.counters ?? [])]) counters.set(keyOf(c), c);
  const totals = await countLimitUsage(run.deps.db, callKeyOf(run.runId, toolCallId), [...counters.values()]);
  const hits = count?.hitsOf(totals) ?? [];
  if (hits.length > 0) run.log.info({ tool: toolName, hits }, 'call is over a cumulative limit');
  const shadowHits = shadow?.hitsOf(totals) ?? [];
  return { ...(hits.length > 0 ? { hits } : {}), ...(shadowHits.length > 0 ? { shadowHits } : {}) };
}

/** The key a call is counted under: one element per call in each counter, whatever its arguments. */
function callKeyOf(runId: string, toolCallId: string): string {
  return `${runId}/${toolCallId}`;
}

/** An edited call's limits: the hits its requirement is worked out from, and the re-count that must agree (see recordEdit). */
interface EditedLimits {
  hits: LimitHit[];
  recount: Recount;
}

/**
 * The limits an edited call goes over, counted with its edited arguments in place of those it
 * was asked with (one read; none for a tool without limits, which gets undefined). The edit's
 * own statement counts it again under the counters' locks and lands only if every limit is
 * still over or under as here (recountCtes), so the requirement always includes every limit
 * the edited call goes over.
 */
export async function previewEditedLimits(
  db: Db,
  policy: Policy,
  call: { runId: string; toolCallId: string; toolName: string; args: unknown; requester: string | null },
  mcp: McpToolIdentity | undefined,
): Promise<EditedLimits | undefined> {
  const count = limitCountOf(policy, call.toolName, call.args, call.requester, mcp);
  if (!count) return undefined;
  const callKey = callKeyOf(call.runId, call.toolCallId);
  const hits = count.hitsOf(await previewRecount(db, callKey, count.counters));
  const over = new Set(hits.map((h) => h.limit));
  const checkOf = (limit: number) => count.checks.find((c) => c.limit === limit)!;
  return {
    hits,
    recount: {
      callKey,
      counts: count.counters,
      expected: count.checks.map((c) => ({ toolKey: c.toolKey, measure: c.measure, subject: c.subject, above: count.above(c), over: over.has(c.limit) })),
      hits: hits.map((hit) => {
        const c = checkOf(hit.limit);
        return { counter: { toolKey: c.toolKey, measure: c.measure, subject: c.subject }, hit: { ...hit } };
      }),
    },
  };
}
