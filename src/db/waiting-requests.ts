import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import { pendingActionColumns, type PendingAction } from './rows.js';
import { requestFilterSql, type RequestFilter } from './request-filter.js';

/** One tool of one agent that open approval requests are for. */
interface OpenCall {
  toolName: string;
  path: string[] | null;
}

/**
 * The distinct (tool, agent path) pairs of the agent's open approval requests, at most `max`:
 * what the policy is evaluated for before its open requests are filtered. A flood of requests
 * adds rows, not pairs (the model can only call the tools the agents have).
 */
export async function openApprovalCalls<T extends DB>(db: Kysely<T>, agentId: string, max: number): Promise<{ calls: OpenCall[]; more: boolean }> {
  const result = await sql<{ tool_name: string; path: string[] | null }>`
    SELECT DISTINCT tool_name, path FROM pending_actions
    WHERE status = 'pending' AND kind = 'approval' AND path->>0 = ${agentId}
    LIMIT ${max + 1}
  `.execute(db);
  const calls = result.rows.slice(0, max).map((r) => ({ toolName: r.tool_name, path: r.path }));
  return { calls, more: result.rows.length > max };
}

interface WaitingQuery {
  /** Who may decide, as the runtime states it for the viewer. */
  filter: RequestFilter;
  /** The viewer: requests they voted on are not waiting for them. */
  user: string;
  /** Requests past their expiry (not yet swept) wait for nobody. */
  now: Date;
  /** The page starts after this request id (oldest first); undefined: the oldest. */
  after?: number;
  limit: number;
}

interface WaitingRows {
  /** The page, oldest first. */
  rows: PendingAction[];
  /** Every open request that matches, counted exactly. */
  total: number;
  /** How many of them come before the page. */
  before: number;
}

/**
 * One page of the agent's open approval requests that match the filter, oldest first, with the
 * exact count of all that do and of those before the page, in one statement: the filter is
 * evaluated in the database over the open requests' partial index (migration 012), and only
 * the page's rows are read back, however many requests wait for others.
 */
export async function waitingRequests<T extends DB>(db: Kysely<T>, agentId: string, query: WaitingQuery): Promise<WaitingRows> {
  const after = query.after ?? 0;
  const result = await sql<PendingAction & { total: string | number; before: string | number; id: number | null }>`
    WITH waiting AS MATERIALIZED (
      SELECT id FROM pending_actions
      WHERE status = 'pending' AND kind = 'approval' AND path->>0 = ${agentId}
        AND (expires_at IS NULL OR expires_at > ${query.now.toISOString()}::timestamptz)
        AND NOT (approvals @> jsonb_build_array(jsonb_build_object('userId', ${query.user}::text)))
        AND ${requestFilterSql(query.filter)}
    ),
    counts AS (SELECT count(*) AS total, count(*) FILTER (WHERE id <= ${after}) AS before FROM waiting),
    page AS (SELECT id FROM waiting WHERE id > ${after} ORDER BY id LIMIT ${query.limit})
    SELECT ${pendingActionColumns('p')}, counts.total, counts.before
    FROM counts LEFT JOIN (page JOIN pending_actions p ON p.id = page.id) ON TRUE
    ORDER BY p.id
  `.execute(db);
  const first = result.rows[0];
  return {
    rows: result.rows.filter((r) => r.id !== null).map(({ total: _total, before: _before, ...row }) => row as PendingAction),
    total: Number(first?.total ?? 0),
    before: Number(first?.before ?? 0),
  };
}
