import type { PendingAction } from '../db/rows.js';
import { requirementFor } from '../approvals/requirement-for.js';
import { limitHitsFromRow } from '../approvals/apply-limits.js';
import { announcedAs } from './run-state.js';
import type { AnnouncedRequest } from './stream.js';
import type { RuntimeDeps, TopCall } from './run-model.js';
import { bindingOfRow, bindingPayload } from './request-binding.js';

/**
 * The top-level delegation each sub-agent run of a tree works under, from the tree's pending
 * delegation rows (a delegation row names the run it waits on in its suspend payload).
 */
function topCallsOf(rows: readonly PendingAction[], rootRunId: string): Map<string, TopCall> {
  const parentOf = new Map<string, PendingAction>();
  for (const r of rows) {
    const child = r.kind === 'delegation' ? (r.suspend_payload as { runId?: unknown } | null)?.runId : undefined;
    if (typeof child === 'string') parentOf.set(child, r);
  }
  const tops = new Map<string, TopCall>();
  for (const runId of parentOf.keys()) {
    let delegation = parentOf.get(runId);
    // Up the chain to the delegation the top-level run made (bounded by the tree's size).
    for (let hops = 0; delegation && delegation.run_id !== rootRunId && hops < rows.length; hops++) delegation = parentOf.get(delegation.run_id);
    if (delegation?.run_id === rootRunId) tops.set(runId, { toolCallId: delegation.tool_call_id, toolName: delegation.tool_name, args: delegation.args });
  }
  return tops;
}

/**
 * The calls a tree waits on (approvals and suspensions, in the order they were asked), each as
 * the chunk that announced it shows it (see announcedAs).
 */
export function waitingCalls(deps: RuntimeDeps, rows: readonly PendingAction[], rootRunId: string): AnnouncedRequest[] {
  const tops = topCallsOf(rows, rootRunId);
  const out: AnnouncedRequest[] = [];
  for (const row of rows) {
    if (row.status !== 'pending' || (row.kind !== 'approval' && row.kind !== 'suspension')) continue;
    const call = { toolCallId: row.tool_call_id, toolName: row.tool_name, args: row.args };
    const base = { path: row.path ?? [], runId: row.run_id, actionId: row.id };
    if (row.kind === 'suspension') {
      out.push({ kind: 'suspension', payload: { ...announcedAs(tops.get(row.run_id), call, 'suspension'), ...base, suspendPayload: row.suspend_payload } });
      continue;
    }
    const requirement = requirementFor(deps.policy, row.tool_name, row.args, deps.mcpIdentity?.(row.tool_name, row.path ?? null), limitHitsFromRow(row.limit_hits), { at: deps.now() });
    const limitHits = limitHitsFromRow(row.limit_hits);
    out.push({
      kind: 'approval',
      payload: {
        ...announcedAs(tops.get(row.run_id), call, 'approval'),
        ...base,
        fingerprint: row.fingerprint ?? '',
        policyVersion: row.policy_version ?? '',
        ...(row.requester ? { requester: row.requester } : {}),
        approvers: requirement.approvers,
        quorum: row.quorum,
        expiresAt: new Date(row.expires_at ?? Date.now()).toISOString(),
        ...(limitHits?.length ? { limitHits } : {}),
        ...bindingPayload(bindingOfRow(row)),
        ...(row.caller ? { caller: row.caller } : {}),
        ...(requirement.freezes ? { freezes: requirement.freezes } : {}),
      },
    });
  }
  return out;
}

/**
 * The pending call of a tree that a decision or an answer addressed by `toolCallId` means when
 * it names no call of the run itself: a sub-agent's call announced under the top-level
 * delegation's id (the first of them, as announced, when the sub-agent waits on several).
 */
export function callUnderDelegation(rows: readonly PendingAction[], rootRunId: string, toolCallId: string, kinds: readonly string[]): PendingAction | undefined {
  const tops = topCallsOf(rows, rootRunId);
  return rows.find((r) => r.status === 'pending' && kinds.includes(r.kind) && tops.get(r.run_id)?.toolCallId === toolCallId);
}

/**
 * The requests of a pause its own stream announces, as Mastra 1.71's: the first call that waits
 * (Mastra runs a step's calls one at a time and stops there), except that sub-agents run side by
 * side, so when every call that waits is a sub-agent's, the first of each delegation. The rest
 * are announced one per continuation; a front end reads them all at the first (requestsOfPause).
 */
export function announcedNow(announced: AnnouncedRequest[]): AnnouncedRequest[] {
  const first = announced[0];
  if (!first) return [];
  if (!announced.every((a) => a.payload.innerToolCallId !== undefined)) return [first];
  const seen = new Set<string>();
  return announced.filter((a) => !seen.has(a.payload.toolCallId) && seen.add(a.payload.toolCallId));
}
