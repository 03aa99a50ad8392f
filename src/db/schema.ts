import type { ColumnType, Generated, JSONColumnType } from 'kysely';

/** Kysely's view of the tables created by `migrations/`. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T = unknown> = ColumnType<T, string, string>;

export interface RunSnapshotsTable {
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  agent_id: string;
  thread_id: string | null;
  resource_id: string | null;
  status: 'suspended' | 'running';
  snapshot: Json;
  suspended_at: Timestamp;
  claimed_at: Timestamp | null;
  claim_epoch: Generated<number>;
}

export type PendingKind = 'approval' | 'suspension' | 'delegation';
export type PendingStatus =
  | 'pending'
  | 'approved'
  | 'declined'
  | 'expired'
  | 'resumed'
  | 'resolved'
  | 'cancelled'
  | 'superseded'
  /** Delegations only: the sub-agent failed (the reason says how). */
  | 'failed'
  /** Approvals only: an approver edited the arguments; a new request for the same call took its place. */
  | 'edited';

export interface PendingActionsTable {
  id: Generated<number>;
  run_id: string;
  root_run_id: string;
  tool_call_id: string;
  tool_name: string;
  kind: PendingKind;
  args: Json;
  fingerprint: string | null;
  suspend_payload: Json | null;
  path: Json<string[]> | null;
  status: ColumnType<PendingStatus, PendingStatus | undefined, PendingStatus>;
  requester: string | null;
  policy_version: string | null;
  quorum: ColumnType<number, number | undefined, number>;
  approvals: ColumnType<Approval[], string | undefined, string>;
  expires_at: Timestamp | null;
  decided_by: string | null;
  decided_at: Timestamp | null;
  reason: string | null;
  resume_data: Json | null;
  /** The cumulative limits the request went over; null when none did. */
  limit_hits: ColumnType<unknown, string | undefined, string> | null;
  /** Why a remembered approval matching the call was not used (see db/remembered-grants.ts); null otherwise. */
  remembered_unused: ColumnType<unknown, string | undefined, string> | null;
  /** Set on a request an approver's edit created (see RequestEdit); null otherwise. */
  edit: ColumnType<RequestEdit | null, string | null | undefined, string | null>;
  /** What the model said it makes the call for (see agent/stated-reason.ts); null when it said nothing. */
  stated_reason: string | null;
  /** The tool's preview when the call was asked for (see agent/bound-call.ts); null for a tool without one. */
  preview: ColumnType<unknown, string | undefined, string> | null;
  /** The tool's definition as its source declared it when asked (MCP tools); null otherwise. */
  tool_pin: ColumnType<unknown, string | undefined, string> | null;
  /** Why this request replaces an approved one whose call did not run (see agent/bound-call.ts); null otherwise. */
  asked_again: ColumnType<unknown, string | undefined, string> | null;
  /** What started a run nobody requested (StreamOptions.caller); null otherwise. */
  caller: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
}

/** Where an edited request came from: the request it replaced, who edited it, the model's own arguments. */
export interface RequestEdit {
  fromActionId: number;
  editor: string;
  proposedArgs: unknown;
}

export interface Approval {
  userId: string;
  at: string;
  /** The approver also asked to remember the approval ("Approve and allow for …"). */
  remember?: true;
  /** Why they approved, when they said (required where the policy sets requireReason). */
  reason?: string;
}

export interface ApprovalGrantsTable {
  id: Generated<number>;
  action_id: number;
  run_id: string;
  tool_call_id: string;
  fingerprint: string;
  approvers: JSONColumnType<string[]>;
  requester: string | null;
  policy_version: string;
  /** The preview's state digest the approval was given with; null for a call without a preview. */
  state_digest: string | null;
  /** The digest of the tool's definition the approval was given for (MCP tools); null otherwise. */
  tool_digest: string | null;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  consumed_at: Timestamp | null;
}

export interface AuditEventsTable {
  id: ColumnType<string, never, never>;
  at: Generated<Date>;
  event: string;
  run_id: string;
  tool_call_id: string | null;
  tool_name: string | null;
  actor: string | null;
  fingerprint: string | null;
  policy_version: string | null;
  detail: Json | null;
}

export interface ThreadMessagesTable {
  id: ColumnType<string, never, never>;
  thread_id: string;
  resource_id: string;
  message: Json;
  created_at: Generated<Date>;
}

export interface RunResultsTable {
  run_id: string;
  agent_id: string;
  thread_id: string | null;
  resource_id: string | null;
  text: string;
  finish_reason: string;
  finished_at: Generated<Date>;
}

export interface LimitUsageTable {
  tool_key: string;
  measure: string;
  subject: string;
  window_ms: ColumnType<string, number, number>;
  at: Date[];
  amounts: number[];
  calls: string[];
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: Generated<Date>;
}

export interface DB {
  run_snapshots: RunSnapshotsTable;
  pending_actions: PendingActionsTable;
  approval_grants: ApprovalGrantsTable;
  audit_events: AuditEventsTable;
  thread_messages: ThreadMessagesTable;
  run_results: RunResultsTable;
  limit_usage: LimitUsageTable;
  schema_migrations: SchemaMigrationsTable;
}
