import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { truncate } from '../kit/limits.js';
import { mention } from '../kit/mention.js';
import type { OverLimit } from './card-types.js';

/**
 * Why a card asks more than usual, one line per limit the request went over, e.g.
 * "*Over the limit:* $1,350.00 of `issue_refund` by @bob in the last 24h exceeds $1,000.00 → 2 approvals".
 * An amount whose argument is named in cents (`amountCents`) is shown as dollars.
 */
export function limitReasonText(hit: OverLimit, toolName: string, quorum: number): string {
  const money = hit.sum !== undefined && /cents$/i.test(hit.sum.split('.').pop() ?? '');
  const amount = (n: number) =>
    money
      ? `$${(n / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
      : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
  const what =
    hit.sum !== undefined
      ? `${amount(hit.total)} of ${inlineCode(truncate(toolName, 100))}${money ? '' : ` ${inlineCode(truncate(hit.sum, 100))}`}`
      : `${amount(hit.total)} ${hit.total === 1 ? 'call' : 'calls'} of ${inlineCode(truncate(toolName, 100))}`;
  const by = hit.requester === undefined ? ' by everyone' : hit.requester === '' ? '' : ` by ${mention(hit.requester)}`;
  const then = quorum > 1 ? `${quorum} approvals` : 'approval required';
  return `*Over the limit:* ${what}${by} in the last ${windowText(hit.overMs)} exceeds ${amount(hit.above)} → ${then}`;
}

/** The window as a policy would write it: the largest unit that divides it ("24h" rather than "1d"). */
function windowText(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) {
    if (ms >= (unit === 'd' ? 2 * size : size) && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}
