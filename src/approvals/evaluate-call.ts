import type { Policy } from './policy-types.js';
import type { McpToolIdentity } from './mcp-tool-name.js';
import { limitChecksFor } from './limit-checks.js';
import { limitHitsOf, type LimitHit } from './apply-limits.js';
import { requirementFor, toolEntryFor, type AppliedLayer } from './requirement-for.js';
import { callVerdict, type CallVerdict } from './call-verdict.js';

/** An earlier call, for cumulative limits: what the runtime's counters would hold (db/limit-usage.ts). */
export interface PastCall {
  toolName: string;
  args: unknown;
  requester: string | null;
  at: Date;
  mcp?: McpToolIdentity;
}

/** One call as `policy test` and `policy explain` give it. */
export interface CallToEvaluate {
  toolName: string;
  args: unknown;
  /** Absent or null: a run nobody requested (unattended). */
  requester?: string | null;
  mcp?: McpToolIdentity;
  at: Date;
  /** What the tool's code says (its own requireApproval, a requireToolApproval rule): the policy cannot know it. */
  toolRequiresApproval?: boolean;
  history?: readonly PastCall[];
}

export interface Evaluation {
  verdict: CallVerdict;
  /** Every layer the call was evaluated against, in order (see requirementFor). */
  trace: AppliedLayer[];
  /** Each limit of the call's entry with its window's total, this call included. */
  limitTotals: Array<{ limit: number; total: number }>;
}

/**
 * What the runtime decides about one call, without a database: the gate's own requirementFor
 * and callVerdict, with the cumulative limits totalled from `history` as the runtime's
 * counters total them (each counter's calls after `at` minus its window, this call included;
 * see limitHitsFromHistory). The runtime asks code rules where this is told `toolRequiresApproval`.
 */
export function evaluateCall(policy: Policy, call: CallToEvaluate): Evaluation {
  const requester = call.requester ?? null;
  const { hits, totals } = limitHitsFromHistory(policy, { ...call, requester }, call.history ?? []);
  const trace: AppliedLayer[] = [];
  const requirement = requirementFor(policy, call.toolName, call.args, call.mcp, hits, { at: call.at, trace });
  const required = requirement.requireApproval || call.toolRequiresApproval === true;
  return { verdict: callVerdict(policy, requirement, { required, requester }), trace, limitTotals: totals };
}

/**
 * The limits `call` goes over given earlier calls, counted as db/limit-usage.ts counts them: a
 * limit's counter is (entry, what it adds up over which window, whose); each earlier call adds
 * its amount (limitChecksFor) to the counters it shares with this call when it was made after
 * `call.at` minus the window and not after `call.at`.
 */
function limitHitsFromHistory(
  policy: Policy,
  call: { toolName: string; args: unknown; requester: string | null; mcp?: McpToolIdentity; at: Date },
  history: readonly PastCall[],
): { hits: LimitHit[]; totals: Array<{ limit: number; total: number }> } {
  const checks = limitChecksFor(policy, call.toolName, call.args, call.requester, call.mcp);
  if (checks.length === 0) return { hits: [], totals: [] };
  const limits = toolEntryFor(policy, call.toolName, call.mcp)?.entry.limits ?? [];
  const at = call.at.getTime();
  const earlier = history.map((h) => ({ at: h.at.getTime(), checks: limitChecksFor(policy, h.toolName, h.args, h.requester, h.mcp) }));
  const totals = checks.map((check) => {
    let total = check.amount;
    for (const past of earlier) {
      if (past.at > at || past.at <= at - check.windowMs) continue;
      const same = past.checks.find((c) => c.toolKey === check.toolKey && c.measure === check.measure && c.subject === check.subject);
      if (same) total += same.amount;
    }
    return { limit: check.limit, subject: check.subject, total };
  });
  return { hits: limitHitsOf(limits, totals), totals: totals.map(({ limit, total }) => ({ limit, total })) };
}
