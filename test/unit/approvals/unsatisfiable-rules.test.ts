import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { unsatisfiableRules } from '../../../src/approvals/unsatisfiable-rules.js';

describe('unsatisfiableRules', () => {
  it('names a tool whose quorum is larger than the users it lists', () => {
    expect(unsatisfiableRules(definePolicy({ tools: { t: { approvers: ['U0A1', 'U0A2'], quorum: 3 } } }))).toEqual([
      {
        field: 'tools.t',
        tool: 't',
        quorum: 3,
        approvers: 2,
        message: 'tools.t: quorum is 3 but only 2 approvers are listed, so requests under it can never be approved',
      },
    ]);
  });

  it('names the rule that raises the quorum past the list, and the rule that shortens the list', () => {
    const policy = definePolicy({
      tools: {
        refund: {
          approvers: ['U0A1', 'U0A2'],
          rules: [
            { when: { arg: 'amount', op: 'gt', value: 10 }, then: { quorum: 2 } },
            { when: { arg: 'amount', op: 'gt', value: 100 }, then: { quorum: 3 } },
            { when: { arg: 'region', op: 'eq', value: 'eu' }, then: { approvers: ['U0A3'], quorum: 2 } },
          ],
        },
      },
    });
    expect(unsatisfiableRules(policy).map((r) => [r.field, r.message])).toEqual([
      ['tools.refund.rules[1]', 'tools.refund.rules[1]: quorum is 3 but only 2 approvers are listed, so requests under it can never be approved'],
      ['tools.refund.rules[2]', 'tools.refund.rules[2]: quorum is 2 but only 1 approver is listed, so requests under it can never be approved'],
    ]);
  });

  it('names a mistake in the defaults once, not again in every tool that inherits it', () => {
    const policy = definePolicy({ defaults: { approvers: ['U0A1'], quorum: 2 }, tools: { t: { requireApproval: true }, u: {} } });
    expect(unsatisfiableRules(policy).map((r) => r.field)).toEqual(['defaults']);
    expect(unsatisfiableRules(policy)[0]).not.toHaveProperty('tool');
  });

  it('names a tool that inherits a list but raises the quorum, and brackets a tool name with a dot', () => {
    const policy = definePolicy({ defaults: { approvers: ['U0A1'] }, tools: { 'github.create_issue': { quorum: 2 } } });
    expect(unsatisfiableRules(policy).map((r) => r.field)).toEqual(['tools["github.create_issue"]']);
  });

  it('leaves out what can be met: anyone (an empty list), a list with a user group (checked per request), enough users', () => {
    const policy = definePolicy({
      tools: {
        anyone: { quorum: 3 },
        group: { approvers: ['U0A1', 'S0OPS'], quorum: 3 },
        enough: { approvers: ['U0A1', 'U0A2'], quorum: 2 },
        rule: { approvers: ['U0A1', 'U0A2'], rules: [{ when: { arg: 'x', op: 'eq', value: 1 }, then: { approvers: ['S0OPS'], quorum: 4 } }] },
      },
    });
    expect(unsatisfiableRules(policy)).toEqual([]);
  });
});
