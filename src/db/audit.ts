import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';

export type AuditEventName =
  | 'requested'
  | 'suspended'
  | 'approval-recorded'
  | 'approved'
  | 'declined'
  | 'expired'
  | 'superseded'
  | 'blocked'
  | 'consumed'
  | 'started'
  | 'executed'
  | 'failed'
  | 'interrupted'
  | 'resumed'
  | 'cancelled'
  /** An approver changed the arguments: the request closed, a new one for the edited arguments opened. */
  | 'edited'
  /** An approve/decline that changed nothing: not an approver, self-approval, expired, already decided. */
  | 'refused'
  /** Remembered approvals: one created by an approval, used for a later call instead of a card, revoked. */
  | 'remembered'
  | 'remembered-grant-used'
  | 'remembered-revoked'
  /** The policy refused a call without asking anyone (a deny, a freeze's deny, `unattended: deny`). */
  | 'denied'
  /** The shadow policy (SHADOW_POLICY_FILE) would have decided a call differently; nothing changed. */
  | 'shadow-diff';

export interface AuditInput {
  event: AuditEventName;
  runId: string;
  toolCallId?: string | null;
  toolName?: string | null;
  actor?: string | null;
  fingerprint?: string | null;
  policyVersion?: string | null;
  detail?: Record<string, unknown> | null;
}

export interface AuditEvent {
  id: string;
  at: Date;
  event: AuditEventName;
  runId: string;
  toolCallId: string | null;
  toolName: string | null;
  actor: string | null;
  fingerprint: string | null;
  policyVersion: string | null;
  detail: Record<string, unknown> | null;
}

function auditRow(e: AuditInput, n: number) {
  return {
    event: e.event,
    run_id: e.runId,
    tool_call_id: e.toolCallId ?? null,
    tool_name: e.toolName ?? null,
    actor: e.actor ?? null,
    fingerprint: e.fingerprint ?? null,
    policy_version: e.policyVersion ?? null,
    detail: e.detail ?? null,
    n,
  };
}

/** The events as the one parameter insertAuditJson reads. */
export function auditJson(events: AuditInput[]): string {
  const rows = new Array<ReturnType<typeof auditRow>>(events.length);
  for (let n = 0; n < events.length; n++) rows[n] = auditRow(events[n]!, n);
  return JSON.stringify(rows);
}

/**
 * An INSERT of the events in `json` (auditJson's, as a parameter), for use as a CTE
 * inside a larger statement (order kept); with `onlyIf`, only when that condition
 * holds in the statement (e.g. the write they belong to happened).
 */
export function insertAuditJson(json: unknown, onlyIf?: RawBuilder<unknown>) {
  return sql`
    INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, actor, fingerprint, policy_version, detail)
    SELECT a.event, a.run_id, a.tool_call_id, a.tool_name, a.actor, a.fingerprint, a.policy_version, a.detail
    FROM jsonb_to_recordset(${json}::jsonb) AS a(
      event text, run_id text, tool_call_id text, tool_name text, actor text, fingerprint text, policy_version text, detail jsonb, n integer)
    ${onlyIf ? sql`WHERE ${onlyIf}` : sql``}
    ORDER BY a.n
    RETURNING id`;
}

/** insertAuditJson of these events. */
export function insertAuditRows(events: AuditInput[], onlyIf?: RawBuilder<unknown>) {
  return insertAuditJson(auditJson(events), onlyIf);
}

export async function appendAudit(db: Db, events: AuditInput[]): Promise<void> {
  if (events.length === 0) return;
  await insertAuditRows(events).execute(db);
}

/**
 * Reads the trail in the order it was written. `runId` matches the run itself
 * and every sub-agent run under it, so a supervisor's trail is complete.
 */
export async function listAuditEvents(
  db: Db,
  filter: { runId?: string; since?: Date; limit?: number } = {},
): Promise<AuditEvent[]> {
  let query = db
    .selectFrom('audit_events')
    .select([
      sql<string>`id::text`.as('id'),
      'at',
      'event',
      'run_id',
      'tool_call_id',
      'tool_name',
      'actor',
      'fingerprint',
      'policy_version',
      'detail',
    ])
    .orderBy('audit_events.id');
  if (filter.runId) {
    const runId = filter.runId;
    query = query.where((eb) =>
      eb.or([
        eb('run_id', '=', runId),
        eb('run_id', 'in', eb.selectFrom('pending_actions').select('run_id').where('root_run_id', '=', runId)),
      ]),
    );
  }
  if (filter.since) query = query.where('at', '>=', filter.since);
  if (filter.limit) query = query.limit(filter.limit);
  const rows = await query.execute();
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    event: r.event as AuditEventName,
    runId: r.run_id,
    toolCallId: r.tool_call_id,
    toolName: r.tool_name,
    actor: r.actor,
    fingerprint: r.fingerprint,
    policyVersion: r.policy_version,
    detail: (r.detail as Record<string, unknown> | null) ?? null,
  }));
}
