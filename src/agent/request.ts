import type { PendingAction } from '../db/rows.js';
import type { Approval, RequestEdit } from '../db/schema.js';
import { rememberedUnusedFromRow, type RememberedUnused } from '../db/remembered-grants.js';

/**
 * A request (what people decide or answer) as a front end reads it: the stored row's facts in
 * camelCase, so that front ends work with this and not with database columns.
 */
export interface Request {
  id: number;
  kind: PendingAction['kind'];
  status: PendingAction['status'];
  runId: string;
  rootRunId: string;
  toolCallId: string;
  toolName: string;
  args: unknown;
  /** Agent ids down to the agent that owns the call. */
  path: readonly string[];
  requester?: string;
  quorum: number;
  approvals: readonly Approval[];
  fingerprint: string;
  policyVersion?: string;
  createdAt: Date;
  expiresAt?: Date;
  decidedBy?: string;
  decidedAt?: Date;
  reason?: string;
  /** Set on a request an approver's edit created. */
  edit?: RequestEdit;
  /** What started the run when nobody requested it (see StreamOptions.caller). */
  caller?: string;
  /** A remembered approval matched the call but did not cover what it asks now, and why (see useRemembered). */
  rememberedUnused?: Omit<RememberedUnused, 'expiresAt'> & { expiresAt: Date };
  /** What the call suspended with: a question's, an elicitation's or a tool's own payload. */
  suspendPayload?: unknown;
  /** The answer or resume data given (a decided question or elicitation). */
  resumeData?: unknown;
  /** The cumulative limits the request went over, as stored: the runtime reads it, checked, when it works out the requirement. */
  limitHits?: unknown;
  /** What the approval is bound to besides the arguments, as stored: read through `agent.bindingOf`, never trusted as is. */
  statedReason?: string;
  preview?: unknown;
  toolPin?: unknown;
  askedAgain?: unknown;
}

/** A stored row or a Request: what the agent's methods about one request take. */
export type RequestLike<Row = PendingAction> = Row | Request;

/** Whether `value` is a Request rather than a stored row (or anything else a caller handed in). */
export function isRequest(value: unknown): value is Request {
  return typeof value === 'object' && value !== null && 'toolName' in value;
}

/** The stored row of a request, or of a Request (rowOf): what the runtime works from. Anything else is handed back as it came. */
export function rowLike<Value extends object>(value: Value): Exclude<Value, Request> | PendingAction {
  return isRequest(value) ? rowOf(value) : (value as Exclude<Value, Request>);
}

/** A stored row as a Request. */
export function requestOf(row: PendingAction): Request {
  const unused = rememberedUnusedFromRow(row.remembered_unused);
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    runId: row.run_id,
    rootRunId: row.root_run_id,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    args: row.args,
    path: row.path ?? [],
    ...(row.requester ? { requester: row.requester } : {}),
    quorum: row.quorum,
    approvals: row.approvals,
    fingerprint: row.fingerprint ?? '',
    ...(row.policy_version ? { policyVersion: row.policy_version } : {}),
    createdAt: new Date(row.created_at),
    ...(row.expires_at ? { expiresAt: new Date(row.expires_at) } : {}),
    ...(row.decided_by ? { decidedBy: row.decided_by } : {}),
    ...(row.decided_at ? { decidedAt: new Date(row.decided_at) } : {}),
    ...(row.reason ? { reason: row.reason } : {}),
    ...(row.edit ? { edit: row.edit } : {}),
    ...(row.caller ? { caller: row.caller } : {}),
    ...(unused ? { rememberedUnused: { ...unused, expiresAt: new Date(unused.expiresAt) } } : {}),
    ...(row.suspend_payload != null ? { suspendPayload: row.suspend_payload } : {}),
    ...(row.resume_data != null ? { resumeData: row.resume_data } : {}),
    ...(row.limit_hits != null ? { limitHits: row.limit_hits } : {}),
    ...(row.stated_reason ? { statedReason: row.stated_reason } : {}),
    ...(row.preview != null ? { preview: row.preview } : {}),
    ...(row.tool_pin != null ? { toolPin: row.tool_pin } : {}),
    ...(row.asked_again != null ? { askedAgain: row.asked_again } : {}),
  };
}

/** A Request as the row it was read from (requestOf's inverse): for the runtime, which works from rows. */
export function rowOf(request: Request): PendingAction {
  const unused = request.rememberedUnused;
  return {
    id: request.id,
    run_id: request.runId,
    root_run_id: request.rootRunId,
    tool_call_id: request.toolCallId,
    tool_name: request.toolName,
    kind: request.kind,
    args: request.args as PendingAction['args'],
    fingerprint: request.fingerprint === '' ? null : request.fingerprint,
    suspend_payload: (request.suspendPayload ?? null) as PendingAction['suspend_payload'],
    path: request.path.length > 0 ? [...request.path] : null,
    status: request.status,
    requester: request.requester ?? null,
    policy_version: request.policyVersion ?? null,
    quorum: request.quorum,
    approvals: [...request.approvals],
    expires_at: request.expiresAt ?? null,
    decided_by: request.decidedBy ?? null,
    decided_at: request.decidedAt ?? null,
    reason: request.reason ?? null,
    resume_data: (request.resumeData ?? null) as PendingAction['resume_data'],
    limit_hits: request.limitHits ?? null,
    remembered_unused: unused ? { ...unused, expiresAt: unused.expiresAt.toISOString() } : null,
    edit: request.edit ?? null,
    stated_reason: request.statedReason ?? null,
    preview: request.preview ?? null,
    tool_pin: request.toolPin ?? null,
    asked_again: request.askedAgain ?? null,
    caller: request.caller ?? null,
    created_at: request.createdAt,
  };
}
