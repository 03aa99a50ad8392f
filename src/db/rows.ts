import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { PendingActionsTable, RequestEdit, RunSnapshotsTable } from './schema.js';

/**
 * A pending_actions row as every statement returns it. `limit_hits` (null unless a cumulative limit
 * tightened the request), `remembered_unused` (null unless a remembered approval matched the call
 * but did not cover it) and `edit` (set on a request an approver's edit created) are optional so
 * rows built by hand, e.g. in tests, need not name them.
 */
export type PendingAction = Omit<Selectable<PendingActionsTable>, 'limit_hits' | 'remembered_unused' | 'edit' | 'stated_reason' | 'preview' | 'tool_pin' | 'asked_again' | 'caller'> & {
  limit_hits?: unknown;
  remembered_unused?: unknown;
  edit?: RequestEdit | null;
  /** The bindings of agent/bound-call.ts: read with bindingOfRow, never trusted as stored. */
  stated_reason?: string | null;
  preview?: unknown;
  tool_pin?: unknown;
  asked_again?: unknown;
  /** What started the run when nobody requested it (see StreamOptions.caller). */
  caller?: string | null;
};

/** A run_snapshots row as read back (the lease's time and epoch are bookkeeping, not state). */
export type SnapshotRow = Omit<Selectable<RunSnapshotsTable>, 'claimed_at' | 'claim_epoch'>;

/** A row as a lease returns it: `claim_epoch` identifies this lease until the next one. */
export type LeasedRow = SnapshotRow & { claim_epoch: number };

const pendingActionColumnNames = [
  'id', 'run_id', 'root_run_id', 'tool_call_id', 'tool_name', 'kind', 'args', 'fingerprint', 'suspend_payload',
  'path', 'status', 'requester', 'policy_version', 'quorum', 'approvals', 'expires_at', 'decided_by', 'decided_at',
  'reason', 'resume_data', 'limit_hits', 'remembered_unused', 'edit', 'stated_reason', 'preview', 'tool_pin', 'asked_again', 'caller', 'created_at',
] as const satisfies ReadonlyArray<keyof Selectable<PendingActionsTable>>;

const leasedColumnNames = [
  'run_id', 'root_run_id', 'parent_run_id', 'agent_id', 'thread_id', 'resource_id', 'status', 'snapshot', 'suspended_at', 'claim_epoch',
] as const satisfies ReadonlyArray<keyof LeasedRow>;

function columnsOf(names: readonly string[], alias?: string): RawBuilder<unknown> {
  return sql.raw(names.map((c) => (alias ? `${alias}.${c}` : c)).join(', '));
}

/** Every column of a PendingAction, for a statement's select list or RETURNING (of table alias `alias`). */
export function pendingActionColumns(alias?: string): RawBuilder<unknown> {
  return columnsOf(pendingActionColumnNames, alias);
}

/** A PendingAction as `row_to_json` of its columns gives it: the same keys in the same order, its times ISO text. */
export type PendingActionJson = Omit<PendingAction, 'expires_at' | 'decided_at' | 'created_at'> & {
  expires_at: string | null;
  decided_at: string | null;
  created_at: string;
};

/**
 * The PendingAction of a statement that returns it as one json column, `row_to_json` of a row of
 * pendingActionColumns: what the cycle's statements do. pg sets up every column of a result on
 * each execution (a parser per column, and the row's keys copied out of a dictionary object):
 * for a request's 29 columns about 20 µs of Node CPU per statement, where one json column costs
 * next to nothing and JSON.parse builds the row. The object is the one parsed, its times made
 * Dates as pg makes them (the same instant, to the millisecond).
 */
export function pendingActionFromJson(json: PendingActionJson): PendingAction {
  const row = json as unknown as PendingAction;
  row.expires_at = json.expires_at === null ? null : new Date(json.expires_at);
  row.decided_at = json.decided_at === null ? null : new Date(json.decided_at);
  row.created_at = new Date(json.created_at);
  return row;
}

/** Every column of a LeasedRow, of the run_snapshots alias `alias`. */
export function leasedColumns(alias?: string): RawBuilder<unknown> {
  return columnsOf(leasedColumnNames, alias);
}

export interface SuspendedToolCall {
  toolCallId: string;
  toolName: string;
  args: unknown;
  requiresApproval: boolean;
  suspendPayload: unknown;
  /** Agent ids down to the agent that owns the call. */
  path: string[];
  /** The (sub-agent) run that owns the call. */
  runId: string;
  actionId: number;
  fingerprint: string | null;
  expiresAt: Date | null;
  /** Who started the run the call belongs to, when a person did. */
  requester: string | null;
}

export interface SuspendedRun {
  runId: string;
  status: 'suspended' | 'running';
  threadId: string | null;
  resourceId: string | null;
  suspendedAt: Date;
  toolCalls: SuspendedToolCall[];
}

/** A single-use grant spent by the statement that recorded the approval, on behalf of the process that took the run (or a remembered approval's use). */
export interface SpentGrant {
  id: number;
  action_id: number;
  fingerprint: string;
  policy_version: string;
  approvers: string[];
  /** What the approval is bound to besides the arguments (see GrantCheck); null where there is none. */
  state_digest?: string | null;
  tool_digest?: string | null;
}
