import type { Policy } from './policy-types.js';
import type { PolicyDenial, Requirement } from './requirement-for.js';

/**
 * What happens to one call: it runs unasked, it asks (the requirement says who and how many), or
 * the policy refuses it. The gate (agent/approval-gate.ts) and `policy test`/`policy explain`
 * (cli/policy.ts) both come to it through this function, so a test case says what the runtime does.
 */
export type CallVerdict =
  | { outcome: 'runs'; requirement: Requirement }
  | { outcome: 'asks'; requirement: Requirement }
  | { outcome: 'denied'; requirement: Requirement; denial: PolicyDenial };

/** What the model (and the card) are told about an unattended call the policy's `unattended: deny` refuses. */
export const UNATTENDED_DENIAL =
  'nobody requested this run (an API run or a scheduled job), and the policy refuses calls that need approval in such runs (unattended: deny)';

/**
 * The verdict on a call whose requirement is worked out (requirementFor): a deny wins over
 * everything; else it asks when approval is `required` (by the policy, or by code: the tool's
 * own requireApproval, a requireToolApproval rule). A call that would ask in a run nobody
 * requested (`requester` absent) is refused instead under `unattended: deny`; under the default
 * `require-approval` it waits for a person like any request, and is never remembered (a
 * remembered approval needs a requester) or approved by anyone for being unattended.
 */
export function callVerdict(policy: Pick<Policy, 'unattended'>, requirement: Requirement, call: { required: boolean; requester: string | null | undefined }): CallVerdict {
  if (requirement.deny) return { outcome: 'denied', requirement, denial: requirement.deny };
  if (!call.required) return { outcome: 'runs', requirement };
  if (!call.requester && policy.unattended === 'deny') {
    return { outcome: 'denied', requirement, denial: { reason: UNATTENDED_DENIAL, source: 'unattended' } };
  }
  return { outcome: 'asks', requirement };
}
