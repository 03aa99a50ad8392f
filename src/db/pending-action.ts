import type { PendingKind, PendingStatus, Approval } from './schema.js';

/** A pending_actions row as the runtime uses it (JSON columns decoded). */
export interface PendingAction {
  id: number;
  run_id: string;
  root_run_id: string;
  tool_call_id: string;
  tool_name: string;
  kind: PendingKind;
  args: unknown;
  fingerprint: string | null;
  suspend_payload: unknown;
  path: string[] | null;
  status: PendingStatus;
  requester: string | null;
  policy_version: string | null;
  quorum: number;
  approvals: Approval[];
  expires_at: Date | null;
  decided_by: string | null;
  decided_at: Date | null;
  reason: string | null;
  resume_data: unknown;
  created_at: Date;
}
