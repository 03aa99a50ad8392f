import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/database.js';
import { openWorkCounts } from '../db/open-work-counts.js';
import { instrumentRegistry } from './bot-metrics.js';

/**
 * Everything GET /metrics shows for one bot: its instruments (botMetrics), the process's own
 * (CPU, memory, event-loop lag, from prom-client's defaults), and what is open in the database,
 * counted when scraped with one statement, so the count costs nothing between scrapes.
 */
export function metricsRegistry(db: Db): Registry {
  const scraped = new Registry();
  collectDefaultMetrics({ register: scraped });
  const requests = new Gauge({
    name: 'approval_bot_open_requests',
    help: 'Requests waiting on a person, by kind (approval, suspension) and state (pending; overdue: past expiry, not yet swept)',
    labelNames: ['kind', 'state'] as const,
    registers: [scraped],
    collect: () => count(),
  });
  const runs = new Gauge({
    name: 'approval_bot_open_runs',
    help: 'Top-level runs on record, by status (suspended, running)',
    labelNames: ['status'] as const,
    registers: [scraped],
    collect: () => count(),
  });
  const seen = { requests: new Set<string>(), runs: new Set<string>() };
  let counting: Promise<void> | undefined;
  // One statement per scrape, shared by both gauges; label sets that emptied read 0 rather than vanish.
  const count = (): Promise<void> =>
    (counting ??= openWorkCounts(db)
      .then((counts) => {
        for (const key of seen.requests) requests.set(JSON.parse(key) as { kind: string; state: string }, 0);
        for (const key of seen.runs) runs.set({ status: key }, 0);
        for (const r of counts.requests) {
          seen.requests.add(JSON.stringify({ kind: r.kind, state: r.state }));
          requests.set({ kind: r.kind, state: r.state }, r.count);
        }
        for (const r of counts.runs) {
          seen.runs.add(r.status);
          runs.set({ status: r.status }, r.count);
        }
      })
      .finally(() => (counting = undefined)));
  return Registry.merge([instrumentRegistry, scraped]);
}
