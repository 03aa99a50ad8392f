import type { McpToolIdentity } from '../approvals/mcp-tool-name.js';
import type { LimitHit } from '../approvals/apply-limits.js';
import type { Policy } from '../approvals/policy-types.js';
import { requirementFor } from '../approvals/requirement-for.js';
import { callVerdict, type CallVerdict } from '../approvals/call-verdict.js';
import { botMetrics } from '../metrics/bot-metrics.js';
import type { RunState } from './run-model.js';

/**
 * How the shadow policy's verdict on a call differs from the enforced one: what the shadow would
 * do instead (ask, not ask, deny), or, when both ask, whom and how many it would ask.
 */
type ShadowDifference = 'would-ask' | 'would-not-ask' | 'would-deny' | 'other-approvers' | 'other-quorum' | 'other-self-approval';

/** Every way `shadow` differs from `enforced`; empty when they agree (a deny's wording is not a difference). */
function shadowDifferences(enforced: CallVerdict, shadow: CallVerdict): ShadowDifference[] {
  if (enforced.outcome !== shadow.outcome) {
    return [shadow.outcome === 'denied' ? 'would-deny' : shadow.outcome === 'asks' ? 'would-ask' : 'would-not-ask'];
  }
  if (enforced.outcome !== 'asks') return [];
  const a = enforced.requirement;
  const b = shadow.requirement;
  const out: ShadowDifference[] = [];
  if (a.approvers.length !== b.approvers.length || a.approvers.some((id, i) => id !== b.approvers[i])) out.push('other-approvers');
  if (a.quorum !== b.quorum) out.push('other-quorum');
  if (a.allowSelfApproval !== b.allowSelfApproval) out.push('other-self-approval');
  return out;
}

/** A verdict as the audit trail keeps it. */
function summary(verdict: CallVerdict): Record<string, unknown> {
  if (verdict.outcome === 'denied') return { outcome: 'denied', reason: verdict.denial.reason, source: verdict.denial.source };
  if (verdict.outcome === 'runs') return { outcome: 'runs' };
  const r = verdict.requirement;
  return { outcome: 'asks', approvers: r.approvers, quorum: r.quorum, allowSelfApproval: r.allowSelfApproval };
}

/**
 * Evaluates the call under the shadow policy exactly as the gate did under the enforced one (the
 * same requirementFor and callVerdict, the same moment, the code rules' answer shared) and, when
 * the verdicts differ, puts a `shadow-diff` event on the run's next write and counts each
 * difference. Agreement writes nothing. A failure here is logged and changes nothing: the
 * shadow never decides.
 */
export async function compareShadow(
  run: RunState,
  shadowPolicy: Policy,
  call: { toolCallId: string; toolName: string; args: unknown; mcp: McpToolIdentity | undefined; at: Date; hits: LimitHit[] | undefined },
  enforced: CallVerdict,
  codeRequires: () => Promise<boolean>,
): Promise<void> {
  try {
    const requirement = requirementFor(shadowPolicy, call.toolName, call.args, call.mcp, call.hits, { at: call.at });
    const requester = run.options.requester;
    const shadow = requirement.deny
      ? callVerdict(shadowPolicy, requirement, { required: false, requester })
      : callVerdict(shadowPolicy, requirement, { required: requirement.requireApproval || (await codeRequires()), requester });
    botMetrics.shadowEvaluations.inc();
    const differences = shadowDifferences(enforced, shadow);
    if (differences.length === 0) return;
    for (const difference of differences) botMetrics.shadowDiffs.inc({ difference });
    run.log.info({ toolCallId: call.toolCallId, tool: call.toolName, differences, shadowVersion: requirement.policyVersion }, 'shadow policy would decide this call differently');
    run.audit.push({
      event: 'shadow-diff',
      runId: run.runId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      actor: requester ?? null,
      policyVersion: enforced.requirement.policyVersion,
      detail: { differences, shadowVersion: requirement.policyVersion, enforced: summary(enforced), shadow: summary(shadow) },
    });
  } catch (error) {
    run.log.warn({ err: error, toolCallId: call.toolCallId, tool: call.toolName }, 'shadow policy could not be evaluated; nothing changed');
  }
}
