import type { Policy } from './approvals/policy-types.js';
import { unsatisfiableRules } from './approvals/unsatisfiable-rules.js';
import type { Logger } from './logger.js';

/** One warning per rule whose quorum its listed approvers can never meet (the policy still loads: such requests fail closed). */
export function warnUnsatisfiable(log: Logger, policy: Policy): void {
  for (const rule of unsatisfiableRules(policy)) {
    log.warn({ field: rule.field, quorum: rule.quorum, approvers: rule.approvers, policyVersion: policy.version }, rule.message);
  }
}
