import type { Decision } from '../agent/api-types.js';
import { botMetrics } from './bot-metrics.js';

/** Counts a decision by outcome and, for one that closed its request, how long the request waited. */
export function observeDecision(decision: Decision): void {
  botMetrics.decisions.inc({ outcome: decision.outcome });
  if (decision.outcome !== 'approved' && decision.outcome !== 'declined') return;
  const created = new Date(decision.action.created_at as unknown as string | Date).getTime();
  if (Number.isFinite(created)) botMetrics.timeToDecision.observe({ outcome: decision.outcome }, Math.max(0, (Date.now() - created) / 1000));
}
