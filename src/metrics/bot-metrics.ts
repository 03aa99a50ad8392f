import { Counter, Histogram, Registry } from 'prom-client';
import type { Decision } from '../agent/api-types.js';

/**
 * The bot's instruments, in a registry of their own (not prom-client's global one, which an
 * application hosting the bot may use for itself). Updating one is a few in-memory operations: no
 * I/O, so they sit on the hot path without adding to it. GET /metrics (metricsRoute) exposes them
 * with what is counted at scrape time.
 */
export const instrumentRegistry = new Registry();

const registers = [instrumentRegistry];

/** A counter in the bot's registry; `labelNames` are the labels its samples carry. */
function counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  return new Counter({ name, help, labelNames, registers });
}

/** A histogram in the bot's registry, with `buckets` (upper bounds) suited to what it times. */
function histogram<L extends string = never>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []): Histogram<L> {
  return new Histogram({ name, help, buckets, labelNames, registers });
}

export const botMetrics = {
  decisions: counter('approval_bot_decisions_total', 'Approve/decline decisions, by outcome (approved, approval-recorded, declined, not-allowed, expired, ...)', ['outcome']),
  timeToDecision: histogram('approval_bot_time_to_decision_seconds', 'From a request being made to the decision that closed it (approved or declined)', [5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600], ['outcome']),
  acks: counter('approval_bot_slack_acks_total', 'Slack requests acknowledged, by payload type (event_callback, block_actions, view_submission, ...)', ['type']),
  ackLatency: histogram('approval_bot_slack_ack_duration_seconds', 'From Bolt handing a Slack request to the app to its acknowledgement (Slack allows 3 s)', [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3], ['type']),
  modelCalls: counter('approval_bot_model_calls_total', 'Model calls (one per step; retries of a transient error inside a call are not counted again)'),
  modelErrors: counter('approval_bot_model_call_errors_total', 'Model calls that failed after their retries'),
  modelLatency: histogram('approval_bot_model_call_duration_seconds', 'How long a model call took, streamed to its end', [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]),
  sweeps: counter('approval_bot_sweeps_total', 'Sweeps run by this instance, by result (ok, failed)', ['result']),
  sweptItems: counter('approval_bot_swept_items_total', 'What sweeps found to do, by kind (expired, recovered, unposted_card, stale_card, kept_answer)', ['kind']),
  shadowEvaluations: counter('approval_bot_shadow_policy_evaluations_total', 'Calls evaluated under the shadow policy (SHADOW_POLICY_FILE) beside the policy in force'),
  shadowDiffs: counter(
    'approval_bot_shadow_policy_diffs_total',
    'Calls the shadow policy would have decided differently, by difference (would-ask, would-not-ask, would-deny, other-approvers, other-quorum, other-self-approval)',
    ['difference'],
  ),
  slackRetries: counter('approval_bot_slack_api_retries_total', 'Slack Web API calls retried after a rate limit, a 5xx or a network error'),
};

/** Counts a decision by outcome and, for one that closed its request, how long the request waited. */
export function observeDecision(decision: Decision): void {
  botMetrics.decisions.inc({ outcome: decision.outcome });
  if (decision.outcome !== 'approved' && decision.outcome !== 'declined') return;
  const created = new Date(decision.action.created_at as unknown as string | Date).getTime();
  if (Number.isFinite(created)) botMetrics.timeToDecision.observe({ outcome: decision.outcome }, Math.max(0, (Date.now() - created) / 1000));
}
