import type { AgentStream, ApprovalRequest } from '../../agent/api-types.js';
import { storedRequest, type SlackContext, type ThreadTarget } from '../context.js';
import { showCard } from './show-card.js';

/**
 * The cards for the approval requests a run announced together when it paused: the calls of one
 * run's step (two or more) share one batch card; a lone call gets the card it always had.
 */
export async function showApprovalCards(
  ctx: SlackContext,
  requests: readonly ApprovalRequest[],
  target: ThreadTarget,
  onCancelled: (stream: AgentStream) => Promise<void>,
): Promise<void> {
  const byRun = new Map<string, ApprovalRequest[]>();
  for (const r of requests) {
    const group = byRun.get(r.runId);
    if (group) group.push(r);
    else byRun.set(r.runId, [r]);
  }
  for (const group of byRun.values()) {
    const stored = group.map((r) => storedRequest(ctx, r));
    if (group.length === 1) await showCard(ctx, group[0]!.actionId, target, onCancelled, stored[0]);
    else await ctx.batches.post(ctx, group.map((r) => r.actionId), target, onCancelled, stored);
  }
}
