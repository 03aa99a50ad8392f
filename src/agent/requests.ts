import type { JSONSchema7 } from '@ai-sdk/provider';
import type { PendingAction } from '../db/rows.js';
import type { Approval, RequestEdit } from '../db/schema.js';
import { rememberedUnusedFromRow, type RememberedUnused } from '../db/remembered-grants.js';
import { requirementOfRequest, type Requirement } from '../approvals/requirement-for.js';
import { approversAt } from '../approvals/approvers-at.js';
import { unreachableQuorum } from '../approvals/unreachable-quorum.js';
import { presentCall, type CallPresentation } from './describe-call.js';
import { rememberForOf } from './remembered-call.js';
import { editSchemaFor } from './edit.js';
import { findAgent } from './run-state.js';
import type { Tool } from './tool.js';
import type { RequestBindingView } from './request-binding.js';
import type { AgentInternals, RuntimeDeps } from './run-model.js';

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
  };
}

/**
 * Everything a front end shows about one request, worked out from ONE evaluation of the policy
 * (limits it went over included), so that a card, its buttons, its modals and its copies never
 * disagree and a draw costs one evaluation rather than one per question asked.
 */
export interface RequestView {
  request: Request;
  kind: PendingAction['kind'];
  /** The tool the request is about, found along its delegation path; undefined for a sub-agent or a tool the code no longer has. */
  tool: Tool | undefined;
  /** What approving it takes under the policy in force, the limits it went over included. */
  requirement: Requirement;
  /** Who may decide it now (the policy's approvers, joined by its escalateTo once escalated); empty: anyone but the bot. */
  approvers: string[];
  /** How the call reads: the tool's describe(), else its input schema, with risk and requireReason. */
  description: CallPresentation;
  /** The input schema an editor fills in; undefined when the request cannot be edited (see editSchemaOf). */
  editSchema: JSONSchema7 | undefined;
  /** How long approving it may be remembered ("Approve and allow for …"); undefined when it may not be (or it is decided). */
  rememberFor: number | undefined;
  /** What the approval is bound to besides its arguments: stated reason, preview, tool pin, asked-again reason, tool changed. */
  binding: RequestBindingView;
  /**
   * Whether a pending approval can never reach its quorum (who may decide it counted against the
   * quorum it was asked with), from this view's requirement; user groups are looked up only when
   * the listed users fall short. Undefined for anything else, or when it can be reached.
   */
  unreachableQuorum(botUserId?: string): Promise<{ eligible: number } | undefined>;
}

/** What viewRequest reads besides the row: the agent tree (tools), the runtime (policy, clock, groups) and the binding check. */
interface ViewSources {
  root: AgentInternals;
  deps: RuntimeDeps;
  bindingOf(row: PendingAction): RequestBindingView;
}

/** See RequestView; `now` decides escalation and freezes (default: the runtime's clock). */
export function viewRequest(sources: ViewSources, row: PendingAction, now: Date = sources.deps.now()): RequestView {
  const { root, deps } = sources;
  const requirement = requirementOfRequest(deps.policy, row, deps.mcpIdentity, now);
  const agent = findAgent(root, [...(row.path ?? [root.id])]);
  const tool = agent && Object.hasOwn(agent.tools, row.tool_name) ? agent.tools[row.tool_name] : undefined;
  const approvers = approversAt(requirement, new Date(row.created_at), now);
  return {
    request: requestOf(row),
    kind: row.kind,
    tool,
    requirement,
    approvers,
    description: presentCall(tool, row.tool_name, row.args, requirement, deps.logger),
    editSchema: row.kind === 'approval' ? editSchemaFor(tool, requirement) : undefined,
    rememberFor: row.status === 'pending' ? rememberForOf(requirement, tool, row.args, row.requester) : undefined,
    binding: sources.bindingOf(row),
    unreachableQuorum: async (botUserId) => {
      if (row.kind !== 'approval' || row.status !== 'pending') return undefined;
      return unreachableQuorum({
        approvers: requirement.approvers,
        allowSelfApproval: requirement.allowSelfApproval,
        quorum: row.quorum,
        requester: row.requester ?? undefined,
        botUserId: botUserId ?? deps.botUserId,
        resolveGroupMembers: deps.resolveGroupMembers,
      });
    },
  };
}
