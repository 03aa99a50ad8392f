import { Counter, Histogram, Registry } from 'prom-client';

/**
 * The bot's instruments, in a registry of their own (not prom-client's global one, which an
 * application hosting the bot may use for itself). Updating one is a few in-memory operations: no
 * I/O, so they sit on the hot path without adding to it. GET /metrics (metricsRoute) exposes them
 * with what is counted at scrape time.
 */
export const instrumentRegistry = new Registry();

const registers = [instrumentRegistry];

export const botMetrics = {
  decisions: new Counter({
    name: 'approval_bot_decisions_total',
    help: 'Approve/decline decisions, by outcome (approved, approval-recorded, declined, not-allowed, expired, ...)',
    labelNames: ['outcome'] as const,
    registers,
  }),
  timeToDecision: new Histogram({
    name: 'approval_bot_time_to_decision_seconds',
    help: 'From a request being made to the decision that closed it (approved or declined)',
    labelNames: ['outcome'] as const,
    buckets: [5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600],
    registers,
  }),
  acks: new Counter({
    name: 'approval_bot_slack_acks_total',
    help: 'Slack requests acknowledged, by payload type (event_callback, block_actions, view_submission, ...)',
    labelNames: ['type'] as const,
    registers,
  }),
  ackLatency: new Histogram({
    name: 'approval_bot_slack_ack_duration_seconds',
    help: 'From Bolt handing a Slack request to the app to its acknowledgement (Slack allows 3 s)',
    labelNames: ['type'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3],
    registers,
  }),
  modelCalls: new Counter({
    name: 'approval_bot_model_calls_total',
    help: 'Model calls (one per step; retries of a transient error inside a call are not counted again)',
    registers,
  }),
  modelErrors: new Counter({
    name: 'approval_bot_model_call_errors_total',
    help: 'Model calls that failed after their retries',
    registers,
  }),
  modelLatency: new Histogram({
    name: 'approval_bot_model_call_duration_seconds',
    help: 'How long a model call took, streamed to its end',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  }),
  sweeps: new Counter({
    name: 'approval_bot_sweeps_total',
    help: 'Sweeps run by this instance, by result (ok, failed)',
    labelNames: ['result'] as const,
    registers,
  }),
  sweptItems: new Counter({
    name: 'approval_bot_swept_items_total',
    help: 'What sweeps found to do, by kind (expired, recovered, unposted_card, stale_card, kept_answer)',
    labelNames: ['kind'] as const,
    registers,
  }),
  slackRetries: new Counter({
    name: 'approval_bot_slack_api_retries_total',
    help: 'Slack Web API calls retried after a rate limit, a 5xx or a network error',
    registers,
  }),
};
