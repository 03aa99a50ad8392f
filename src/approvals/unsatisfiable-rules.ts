import type { Logger } from '../logger.js';
import type { ApprovalSettings, Policy } from './policy-types.js';

/** A place in a policy whose quorum is larger than the approvers it names, so no request under it can be approved. */
interface UnsatisfiableRule {
  /** Where in the policy: `defaults`, `tools.issue_refund` or `tools.issue_refund.rules[0]`. */
  readonly field: string;
  /** The tool the setting belongs to; undefined for `defaults`. */
  readonly tool?: string;
  readonly quorum: number;
  /** How many approvers are listed there (individual users only: a list with a user group is checked per request). */
  readonly approvers: number;
  /** One sentence naming the field, for a log line. */
  readonly message: string;
}

/**
 * Every setting in the policy whose quorum can never be met by the users it lists. Such a policy
 * still loads (it fails closed: its requests wait and expire), so this is for a warning at load.
 * Lists naming a user group (S…) are left out: groups change size, so they are checked when a
 * request is made (unreachableQuorum). A tool or rule that inherits the same approvers and
 * quorum is not reported again, so each mistake is named once, where it was written.
 */
export function unsatisfiableRules(policy: Policy): UnsatisfiableRule[] {
  const found: UnsatisfiableRule[] = [];
  const check = (field: string, tool: string | undefined, settings: ApprovalSettings, inherited: ApprovalSettings | undefined) => {
    if (inherited !== undefined && sameQuorumAndApprovers(settings, inherited)) return;
    const { approvers, quorum } = settings;
    if (approvers.length === 0 || approvers.some((id) => id.startsWith('S')) || quorum <= approvers.length) return;
    const listed = `${approvers.length} approver${approvers.length === 1 ? ' is' : 's are'} listed`;
    found.push({
      field,
      ...(tool === undefined ? {} : { tool }),
      quorum,
      approvers: approvers.length,
      message: `${field}: quorum is ${quorum} but only ${listed}, so requests under it can never be approved`,
    });
  };

  check('defaults', undefined, policy.defaults, undefined);
  for (const [name, tool] of Object.entries(policy.tools)) {
    const field = toolField(name);
    check(field, name, tool, policy.defaults);
    tool.rules.forEach((rule, i) => check(`${field}.rules[${i}]`, name, { ...tool, ...rule.then }, tool));
    tool.limits?.forEach((limit, i) => check(`${field}.limits[${i}]`, name, { ...tool, ...limit.then }, tool));
  }
  return found;
}

function sameQuorumAndApprovers(a: ApprovalSettings, b: ApprovalSettings): boolean {
  return a.quorum === b.quorum && a.approvers.length === b.approvers.length && a.approvers.every((id, i) => id === b.approvers[i]);
}

/** Bracketed when the name would be ambiguous after a dot (MCP tools are named `server.tool`). */
function toolField(name: string): string {
  return /^[A-Za-z_][\w-]*$/.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`;
}

/** One warning per rule whose quorum its listed approvers can never meet (the policy still loads: such requests fail closed). */
export function warnUnsatisfiable(log: Logger, policy: Policy): void {
  for (const rule of unsatisfiableRules(policy)) {
    log.warn({ field: rule.field, quorum: rule.quorum, approvers: rule.approvers, policyVersion: policy.version }, rule.message);
  }
}
