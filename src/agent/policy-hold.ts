import { requirementOfRequest, type PolicyDenial } from '../approvals/requirement-for.js';
import type { FreezeInForce } from '../approvals/freeze-windows.js';
import type { PendingAction } from '../db/rows.js';
import type { RunState } from './run-model.js';

/** What the policy in force right now says about an approved call that has not run yet. */
type PolicyHold =
  /** It denies the call now (changed since, or a freeze that denies began): it does not run. */
  | { kind: 'denied'; denial: PolicyDenial; policyVersion: string }
  /** The call needs something else now (another policy, a freeze in force or over): asked again under it. */
  | { kind: 'ask-again'; to: string; freezes?: FreezeInForce[] };

/**
 * Whether the approval of `row` still covers its call at this moment, by the run's clock: the
 * requirement it was approved under (its policy version, freezes included; see effectiveVersion)
 * must be the one in force. Undefined when the call may go on to its grant. A grant the deciding
 * vote spent was checked against this very policy a moment ago; only a freeze that began since
 * holds it (or a deny). Pure: no statement.
 */
export function policyHold(run: RunState, row: PendingAction, spentGrant: boolean): PolicyHold | undefined {
  const now = requirementOfRequest(run.deps.policy, row, run.deps.mcpIdentity, run.deps.now());
  if (now.deny) return { kind: 'denied', denial: now.deny, policyVersion: now.policyVersion };
  if (row.policy_version === now.policyVersion) return undefined;
  if (spentGrant && now.policyVersion === run.deps.policy.version) return undefined;
  return { kind: 'ask-again', to: now.policyVersion, ...(now.freezes ? { freezes: now.freezes } : {}) };
}
