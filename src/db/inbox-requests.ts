import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import { pendingActionColumns, type PendingAction } from './rows.js';

export interface InboxLimits {
  /** The person's own requests, newest first. */
  requested: number;
  /** Requests the person decided, most recent first. */
  decided: number;
}

export interface InboxRequests {
  requested: PendingAction[];
  /** How many requests the person asked for in all (the list shows the newest `limits.requested`). */
  requestedTotal: number;
  decided: PendingAction[];
  decidedTotal: number;
}

type Row = PendingAction & { list: 'requested' | 'decided'; total: string | number };

/**
 * The person's own part of their approvals inbox, in one statement: the requests they asked for
 * and the ones they decided (what waits for them is the runtime's to say: Agent.waitingFor). Each
 * list reads its own partial index (migration 012), so finished requests piling up cost only that
 * person's rows.
 */
export async function inboxRequests<T extends DB>(db: Kysely<T>, agentId: string, user: string, limits: InboxLimits): Promise<InboxRequests> {
  const columns = pendingActionColumns();
  const result = await sql<Row>`
    (SELECT 'requested' AS list, ${columns}, count(*) OVER () AS total FROM pending_actions
      WHERE kind = 'approval' AND requester = ${user} AND path->>0 = ${agentId}
      ORDER BY id DESC LIMIT ${limits.requested})
    UNION ALL
    (SELECT 'decided' AS list, ${columns}, count(*) OVER () AS total FROM pending_actions
      WHERE kind = 'approval' AND decided_by = ${user} AND path->>0 = ${agentId}
      ORDER BY decided_at DESC, id DESC LIMIT ${limits.decided})
  `.execute(db);
  const inbox: InboxRequests = { requested: [], requestedTotal: 0, decided: [], decidedTotal: 0 };
  for (const { list, total, ...row } of result.rows) {
    inbox[list].push(row);
    if (list === 'requested') inbox.requestedTotal = Number(total);
    if (list === 'decided') inbox.decidedTotal = Number(total);
  }
  return inbox;
}
