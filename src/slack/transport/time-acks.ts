import type { App } from '@slack/bolt';
import { botMetrics } from '../../metrics/bot-metrics.js';

/**
 * Counts and times every acknowledgement, in HTTP and Socket Mode alike: both receivers hand each
 * request to `app.processEvent` with the `ack` that answers Slack, so wrapping it there sees them
 * all, from the moment Bolt hands the request over to the moment the ack is sent.
 */
export function timeAcks(app: App): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event) => {
    const started = performance.now();
    const type = String((event.body as { type?: unknown } | undefined)?.type ?? 'unknown');
    return processEvent({
      ...event,
      ack: async (response) => {
        try {
          return await event.ack(response);
        } finally {
          botMetrics.acks.inc({ type });
          botMetrics.ackLatency.observe({ type }, (performance.now() - started) / 1000);
        }
      },
    });
  };
}
