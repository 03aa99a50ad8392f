import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from '../agent/agent.js';
import type { Logger } from '../logger.js';

const pattern = /^\/agents\/([A-Za-z0-9_-]{1,64})\/suspended-runs\/?$/;

function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export interface SuspendedRunsRouteOptions {
  /** The agents to list, by id (each answers with Agent.listSuspendedRuns). */
  agents: Agent[];
  /** The Bearer token requests must present; without one the route answers 403 (it shows tool arguments). */
  adminToken?: string;
  logger: Logger;
}

/**
 * `GET /agents/:agentId/suspended-runs[?threadId=&resourceId=]`: what each
 * agent's runs wait on, read from storage (Agent.listSuspendedRuns). Disabled
 * unless an admin token is given, since it shows tool arguments. A node:http
 * handler for any server (the bot mounts it as a Bolt custom route): resolves
 * false, having answered nothing, when the path is not its own.
 */
export function suspendedRunsRoute(options: SuspendedRunsRouteOptions) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = pattern.exec(url.pathname);
    if (!match) return false;
    if (req.method !== 'GET') {
      res.setHeader('allow', 'GET');
      send(res, 405, { error: 'method_not_allowed' });
      return true;
    }
    if (!options.adminToken) {
      send(res, 403, { error: 'listing_disabled', message: 'Set ADMIN_API_TOKEN to enable this endpoint' });
      return true;
    }
    if (!tokenMatches(req.headers.authorization, options.adminToken)) {
      send(res, 401, { error: 'unauthorized' });
      return true;
    }
    const agent = options.agents.find((a) => a.id === match[1]);
    if (!agent) {
      send(res, 404, { error: 'unknown_agent', agentId: match[1] });
      return true;
    }
    try {
      const threadId = url.searchParams.get('threadId') ?? undefined;
      const resourceId = url.searchParams.get('resourceId') ?? undefined;
      send(res, 200, await agent.listSuspendedRuns({ ...(threadId ? { threadId } : {}), ...(resourceId ? { resourceId } : {}) }));
    } catch (error) {
      options.logger.error({ err: error }, 'listing suspended runs failed');
      send(res, 500, { error: 'internal_error' });
    }
    return true;
  };
}
