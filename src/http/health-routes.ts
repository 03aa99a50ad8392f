import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { ReadinessCheck } from './readiness.js';

export interface HealthRoutesOptions {
  readiness: ReadinessCheck;
  /** What GET /metrics exposes (metricsRegistry). */
  metrics: Registry;
  /** When set, /metrics answers only requests with `Authorization: Bearer <token>`. */
  metricsToken?: string;
  logger: Logger;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/**
 * `GET /healthz` (the process answers: liveness, never touches the database, so a database outage
 * does not get every instance restarted), `GET /readyz` (200, or 503 with `{ ready: false, reason }`)
 * and `GET /metrics` (Prometheus text format). A node:http handler for any server: resolves false,
 * having answered nothing, when the path is not one of these.
 */
export function healthRoutes(options: HealthRoutesOptions) {
  const log = options.logger.child({ component: 'health' });
  let lastReason: string | undefined;
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/healthz' && path !== '/readyz' && path !== '/metrics') return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      json(res, 405, { error: 'method_not_allowed' });
      return true;
    }
    if (path === '/healthz') {
      json(res, 200, { ok: true });
      return true;
    }
    if (path === '/readyz') {
      const readiness = await options.readiness.check();
      // One line when readiness changes, not one per probe.
      const reason = readiness.ready ? undefined : readiness.reason;
      if (reason !== lastReason) {
        if (readiness.ready) log.info('ready');
        else log.warn({ reason: readiness.reason, detail: readiness.detail }, 'not ready');
        lastReason = reason;
      }
      json(res, readiness.ready ? 200 : 503, readiness);
      return true;
    }
    if (options.metricsToken && !bearerMatches(req.headers.authorization, options.metricsToken)) {
      json(res, 401, { error: 'unauthorized' });
      return true;
    }
    try {
      const body = await options.metrics.metrics();
      res.writeHead(200, { 'content-type': options.metrics.contentType, 'cache-control': 'no-store' });
      res.end(body);
    } catch (error) {
      log.warn({ err: error }, 'collecting metrics failed');
      json(res, 503, { error: 'metrics_unavailable' });
    }
    return true;
  };
}
