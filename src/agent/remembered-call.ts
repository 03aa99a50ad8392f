import type { CallOutcome, CallTarget, RunState } from './run-model.js';
import { requirementFor, type Requirement } from '../approvals/requirement-for.js';
import type { Tool } from './tool.js';
import type { Emitter } from './stream.js';
import type { AuditInput } from '../db/audit.js';
import { appendAudit } from '../db/audit.js';
import { fingerprint } from '../approvals/fingerprint.js';
import { useRememberedGrant, type RememberedUnused } from '../db/remembered-grants.js';
import { matchSpentGrant, noMatchingGrant } from '../db/grants.js';
import { applyHook } from './before-tool-call.js';
import { checkpointStep } from './run-lease.js';
import { blockedMessage } from './blocked-message.js';
import { bindingColumns, stateDigestOf, type RequestBinding } from './request-binding.js';

/**
 * How long approving this call may be remembered, or undefined when it may not be: the policy
 * must offer it (rememberFor), nothing may mark the call high-risk (the policy's `risk`, or the
 * tool's own `describe(args).risk`; a describe that throws counts as high), and a person must
 * have asked for it (a run without a requester has nobody to remember it for).
 */
export function rememberForOf(requirement: Requirement, tool: Tool | undefined, args: unknown, requester: string | null | undefined): number | undefined {
  if (requirement.rememberFor === undefined || requirement.risk === 'high' || !requester) return undefined;
  return describedRisk(tool, args) === 'high' ? undefined : requirement.rememberFor;
}

/**
 * Whether an approval of this call may have been remembered under this policy: it may be now, or
 * could be were it not for the limits it goes over now (a limit's `then` can make it high-risk;
 * the remembered approval is then found, and the card says why it was not used).
 */
function mayBeRemembered(run: RunState, tool: Tool | undefined, toolName: string, args: unknown, requirement: Requirement, requester: string): boolean {
  if (rememberForOf(requirement, tool, args, requester) !== undefined) return true;
  if (!requirement.limitHits?.length) return false;
  return rememberForOf(requirementFor(run.deps.policy, toolName, args, tool?.mcp, null, { at: run.deps.now() }), tool, args, requester) !== undefined;
}

function describedRisk(tool: Tool | undefined, args: unknown): 'low' | 'high' | undefined {
  if (!tool?.describe) return undefined;
  try {
    return tool.describe(args).risk;
  } catch {
    return 'high';
  }
}

/** What the step loop does with a call a remembered approval covers. */
type RememberedOutcome =
  /** Run it (its `consumed` is on record), with these arguments and audit facts. */
  | { kind: 'run'; args: unknown; audit: Pick<AuditInput, 'fingerprint' | 'policyVersion'> }
  /** Settled without running: the hook blocked it, or what is about to run is not what was remembered. */
  | { kind: 'result'; outcome: CallOutcome }
  /** A remembered approval matched but does not cover what the call asks now: the usual card, saying why. */
  | { kind: 'not-used'; unused: RememberedUnused };

/**
 * A call that would ask for approval, when the policy lets approvals of it be remembered: one
 * statement looks for a live remembered grant and, finding one whose approval covers the call's
 * whole requirement now (`requirement`: its rules and the cumulative limits it goes over; see
 * useRememberedGrant), writes an approved request and its spent single-use grant (audited
 * `remembered-grant-used`, `consumed`). The call then passes the grant check every approved call
 * passes: the hook, and the fingerprint of what is about to run matched against the grant.
 * `not-used`: one matched but the call now asks more (a limit raised the quorum, say). Undefined
 * when nothing is remembered for it (the usual card follows); nothing is read unless the policy
 * could have let an approval of this call be remembered (rememberFor).
 */
export async function useRemembered(
  run: RunState,
  target: CallTarget,
  call: { toolCallId: string; toolName: string },
  args: unknown,
  requirement: Requirement,
  out: Emitter,
  /** What the call is bound to besides its arguments (bound-call.ts): the remembered approval must have been given for it. */
  binding: RequestBinding = {},
): Promise<RememberedOutcome | undefined> {
  const requester = run.options.requester;
  const tool = target.kind === 'tool' ? target.tool : undefined;
  if (!requester || !mayBeRemembered(run, tool, call.toolName, args, requirement, requester)) return undefined;
  const fp = fingerprint(call.toolName, args);
  const digests = { stateDigest: stateDigestOf(binding.preview), toolDigest: binding.toolPin?.digest ?? null };
  const found = await useRememberedGrant(run.deps.db, {
    runId: run.runId,
    rootRunId: run.rootRunId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    path: run.path,
    args,
    fingerprint: fp,
    requester,
    policyVersion: requirement.policyVersion,
    grantTtlMs: run.deps.grantTtlMs,
    now: { ...requirement, overLimits: (requirement.limitHits?.length ?? 0) > 0 },
    ...digests,
    binding: bindingColumns(binding),
  });
  if (!found) return undefined;
  if ('unused' in found) {
    run.log.info({ toolCallId: call.toolCallId, rememberedGrantId: found.unused.rememberedGrantId, why: found.unused.why }, 'remembered approval does not cover the call now; asked as usual');
    return { kind: 'not-used', unused: found.unused };
  }
  const used = found.used;
  run.log.info({ toolCallId: call.toolCallId, rememberedGrantId: used.remembered.id, actionId: used.row.id }, 'call runs under a remembered approval');
  const facts = { fingerprint: fp, policyVersion: requirement.policyVersion };
  const hooked = await applyHook(run, { ...call, args });
  if (!hooked.ok) {
    run.audit.push({ event: 'blocked', runId: run.runId, toolCallId: call.toolCallId, toolName: call.toolName, ...facts, detail: { reason: hooked.reason } });
    out.toolResult(call.toolCallId, call.toolName, hooked.value, hooked.isError);
    return { kind: 'result', outcome: { kind: 'result', output: hooked.output } };
  }
  const check = { runId: run.runId, toolCallId: call.toolCallId, toolName: call.toolName, fingerprint: fingerprint(call.toolName, hooked.args), policyVersion: requirement.policyVersion, ...digests };
  if (!matchSpentGrant(used.grant, check).ok) {
    await appendAudit(run.deps.db, [
      ...run.audit.splice(0),
      { event: 'blocked', runId: run.runId, toolCallId: call.toolCallId, toolName: call.toolName, fingerprint: check.fingerprint, policyVersion: check.policyVersion, detail: { reason: noMatchingGrant } },
    ]);
    const message = blockedMessage(call.toolName);
    out.toolResult(call.toolCallId, call.toolName, message, true);
    return { kind: 'result', outcome: { kind: 'result', output: { type: 'error-text', value: message } } };
  }
  out.remembered({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    path: run.path,
    runId: run.runId,
    actionId: used.row.id,
    rememberedGrantId: used.remembered.id,
    allowedBy: used.remembered.createdBy,
    requester,
    expiresAt: used.remembered.expiresAt.toISOString(),
  });
  // On record before it runs, as a call nobody had to approve is: a process taking the run over
  // finds the spent grant and reports the call interrupted instead of asking the model again.
  await checkpointStep(run);
  return { kind: 'run', args: hooked.args, audit: { fingerprint: check.fingerprint, policyVersion: check.policyVersion } };
}
