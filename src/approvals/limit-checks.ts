import type { Policy } from './policy-types.js';
import type { McpToolIdentity } from './mcp-tool-name.js';
import { lookup, toolEntryFor } from './requirement-for.js';

/**
 * What one call adds to one counter: the counter is (entry key, measure, subject), where the
 * measure names what is added up over which window (`sum:amountCents@86400000`, `count@3600000`)
 * and the subject is the requester for `by: requester`, else `*`. Limits that add up the same
 * thing over the same window share a counter.
 */
export interface LimitCheck {
  limit: number;
  toolKey: string;
  measure: string;
  subject: string;
  amount: number;
  windowMs: number;
}

/**
 * The counters a call of this tool adds to, one per limit of its policy entry; empty when the
 * entry has no limits (the common case: no statement is spent). A sum counts the argument's
 * number when it is a finite number of at least 0, else 0: a negative amount must not make room
 * under a limit.
 */
export function limitChecksFor(
  policy: Policy,
  toolName: string,
  args: unknown,
  requester: string | null,
  mcp?: McpToolIdentity,
): LimitCheck[] {
  const found = toolEntryFor(policy, toolName, mcp);
  const limits = found?.entry.limits;
  if (found === undefined || limits === undefined) return [];
  return limits.map((limit, index) => {
    let amount = 1;
    if (limit.sum !== undefined) {
      const value = lookup(args, limit.sum);
      amount = value.present && typeof value.value === 'number' && Number.isFinite(value.value) && value.value > 0 ? value.value : 0;
    }
    return {
      limit: index,
      toolKey: found.key,
      measure: `${limit.sum !== undefined ? `sum:${limit.sum}` : 'count'}@${limit.overMs}`,
      subject: limit.by === 'requester' ? (requester ?? '') : '*',
      amount,
      windowMs: limit.overMs,
    };
  });
}
