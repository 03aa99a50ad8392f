import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import { pendingActionColumns, type PendingAction } from './rows.js';

export interface InboxLimits {
  /** Open requests read, oldest first, before the caller keeps those the person may decide. */
  open: number;
  /** The person's own requests, newest first. */
  requested: number;
  /** Requests the person decided, most recent first. */
  decided: number;
}

export interface InboxRequests {
  /** Pending approval requests of the agent, oldest first, whoever may decide them. */
  open: PendingAction[];
  requested: PendingAction[];
  /** How many requests the person asked for in all (the list shows the newest `limits.requested`). */
  requestedTotal: number;
  decided: PendingAction[];
  decidedTotal: number;
}

type Row = PendingAction & { list: 'open' | 'requested' | 'decided'; total: string | number };

/**
 * What a person's approvals inbox is drawn from, in one statement: every open approval request
 * of the agent (who may decide each is the policy's call, made by the caller), the ones the person
 * asked for, and the ones they decided. Each list reads its own partial index (migration 012),
 * so finished requests piling up cost the open list nothing and the others only that person's rows.
 */
export async function inboxRequests<T extends DB>(db: Kysely<T>, agentId: string, user: string, limits: InboxLimits): Promise<InboxRequests> {
  const columns = pendingActionColumns();
  const result = await sql<Row>`
    (SELECT 'open' AS list, ${columns}, 0 AS total FROM pending_actions
      WHERE status = 'pending' AND kind = 'approval' AND path->>0 = ${agentId}
      ORDER BY id LIMIT ${limits.open})
    UNION ALL
    (SELECT 'requested' AS list, ${columns}, count(*) OVER () AS total FROM pending_actions
      WHERE kind = 'approval' AND requester = ${user} AND path->>0 = ${agentId}
      ORDER BY id DESC LIMIT ${limits.requested})
    UNION ALL
    (SELECT 'decided' AS list, ${columns}, count(*) OVER () AS total FROM pending_actions
      WHERE kind = 'approval' AND decided_by = ${user} AND path->>0 = ${agentId}
      ORDER BY decided_at DESC, id DESC LIMIT ${limits.decided})
  `.execute(db);
  const inbox: InboxRequests = { open: [], requested: [], requestedTotal: 0, decided: [], decidedTotal: 0 };
  for (const { list, total, ...row } of result.rows) {
    inbox[list].push(row);
    if (list === 'requested') inbox.requestedTotal = Number(total);
    if (list === 'decided') inbox.decidedTotal = Number(total);
  }
  return inbox;
}
