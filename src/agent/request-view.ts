import type { JSONSchema7 } from '@ai-sdk/provider';
import type { PendingAction } from '../db/rows.js';
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
import { requestOf, type Request } from './request.js';

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
export function viewRequest(sources: ViewSources, row: PendingAction, now: Date = sources.deps.now(), request: Request = requestOf(row)): RequestView {
  const { root, deps } = sources;
  const requirement = requirementOfRequest(deps.policy, row, deps.mcpIdentity, now);
  const agent = findAgent(root, [...(row.path ?? [root.id])]);
  const tool = agent && Object.hasOwn(agent.tools, row.tool_name) ? agent.tools[row.tool_name] : undefined;
  const approvers = approversAt(requirement, new Date(row.created_at), now);
  return {
    request,
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
