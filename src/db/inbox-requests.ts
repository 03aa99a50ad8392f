import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from './schema.js';
import { pendingActionColumns, type PendingAction } from './rows.js';

interface InboxLimits {
  /** The person's own requests, newest first. */
  requested: number;
  /** Requests the person decided, most recent first. */
  decided: number;
}

/** A request as the inbox lists it: for one an edit closed, the request that took its place. */
export type InboxRow = PendingAction & { replaced_by: number | null };

interface InboxRequests {
  requested: InboxRow[];
  /** How many requests the person asked for in all (the list shows the newest `limits.requested`). */
  requestedTotal: number;
  decided: InboxRow[];
  decidedTotal: number;
}

/** The person's own lists: what they asked for, and what they decided. */
type OwnList = 'requested' | 'decided';

type Row = InboxRow & { list: OwnList; total: string | number };

/**
 * One of the person's own lists, `limit` rows from `offset`, with how many it has in all. Each
 * list reads its own partial index (migration 012), so finished requests piling up cost only
 * that person's rows. An edited request names the one that replaced it: the next request of
 * the same call (pending_actions_run_call).
 */
function ownList(list: OwnList, agentId: string, user: string, limit: number, offset: number): RawBuilder<Row> {
  const where = list === 'requested' ? sql`requester = ${user}` : sql`decided_by = ${user}`;
  const order = list === 'requested' ? sql`id DESC` : sql`decided_at DESC, id DESC`;
  return sql<Row>`(SELECT ${list}::text AS list, ${pendingActionColumns('p')}, count(*) OVER () AS total,
      CASE WHEN p.status = 'edited' THEN (SELECT n.id FROM pending_actions n
        WHERE n.run_id = p.run_id AND n.tool_call_id = p.tool_call_id AND n.id > p.id ORDER BY n.id LIMIT 1) END AS replaced_by
    FROM pending_actions p
    WHERE kind = 'approval' AND ${where} AND path->>0 = ${agentId}
    ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`;
}

/**
 * The person's own part of their approvals inbox, in one statement: the requests they asked for
 * and the ones they decided (what waits for them is the runtime's to say: Agent.waitingFor).
 */
export async function inboxRequests<T extends DB>(db: Kysely<T>, agentId: string, user: string, limits: InboxLimits): Promise<InboxRequests> {
  const result = await sql<Row>`${ownList('requested', agentId, user, limits.requested, 0)} UNION ALL ${ownList('decided', agentId, user, limits.decided, 0)}`.execute(db);
  const inbox: InboxRequests = { requested: [], requestedTotal: 0, decided: [], decidedTotal: 0 };
  for (const { list, total, ...row } of result.rows) {
    inbox[list].push(row);
    if (list === 'requested') inbox.requestedTotal = Number(total);
    if (list === 'decided') inbox.decidedTotal = Number(total);
  }
  return inbox;
}

/** A page of one of the person's own lists (what "Show all" opens), with its total. */
export async function inboxListPage<T extends DB>(db: Kysely<T>, agentId: string, user: string, list: OwnList, offset: number, limit: number): Promise<{ rows: InboxRow[]; total: number }> {
  const result = await ownList(list, agentId, user, limit, offset).execute(db);
  // Past the end, the window has no row to carry the total: count it on its own.
  if (result.rows.length === 0 && offset > 0) {
    const counted = await ownList(list, agentId, user, 1, 0).execute(db);
    return { rows: [], total: Number(counted.rows[0]?.total ?? 0) };
  }
  return { rows: result.rows.map(({ list: _list, total: _total, ...row }) => row), total: Number(result.rows[0]?.total ?? 0) };
}
