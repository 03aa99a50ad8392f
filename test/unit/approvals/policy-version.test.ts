import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../../src/approvals/policy-schema.js';
import { policyVersion } from '../../../src/approvals/policy-version.js';

const refunds: PolicyInput = {
  defaults: { requireApproval: false, expiresIn: '24h' },
  tools: {
    issue_refund: {
      requireApproval: true,
      approvers: ['S0FINANCE', 'U0ALICE'],
      allowSelfApproval: false,
      rules: [{ when: { arg: 'amountCents', op: 'gt', value: 100_000 }, then: { quorum: 2 } }],
    },
  },
};

describe('policyVersion', () => {
  it('is the first 16 hex characters of a SHA-256, prefixed by the label when there is one', () => {
    const policy = definePolicy(refunds);
    const hash = policyVersion(policy);
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(policy.version).toBe(hash);
    expect(policyVersion(policy, 'prod')).toBe(`prod@${hash}`);
  });

  it('does not depend on key order, duration spelling, approver order or explicit defaults', () => {
    const rewritten: PolicyInput = {
      tools: {
        issue_refund: {
          rules: [{ then: { quorum: 2 }, when: { value: 100_000, op: 'gt', arg: 'amountCents' } }],
          allowSelfApproval: false,
          approvers: ['U0ALICE', 'S0FINANCE', 'U0ALICE'],
          requireApproval: true,
          quorum: 1,
        },
      },
      defaults: { expiresIn: 86_400, allowSelfApproval: true },
    };
    expect(definePolicy(rewritten).version).toBe(definePolicy(refunds).version);
  });

  it('ignores the label when hashing', () => {
    const a = definePolicy({ ...refunds, version: 'first' });
    const b = definePolicy({ ...refunds, version: 'renamed' });
    expect(a.version.split('@')[1]).toBe(b.version.split('@')[1]);
    expect(a.version).toBe(`first@${definePolicy(refunds).version}`);
  });

  it('changes whenever the meaning changes', () => {
    const base = definePolicy(refunds).version;
    const tool = refunds.tools!.issue_refund!;
    const variants: PolicyInput[] = [
      { ...refunds, defaults: { expiresIn: '23h' } },
      { ...refunds, tools: { issue_refund: { ...tool, approvers: ['S0FINANCE'] } } },
      { ...refunds, tools: { issue_refund: { ...tool, allowSelfApproval: true } } },
      { ...refunds, tools: { issue_refund: { ...tool, rules: [] } } },
      {
        ...refunds,
        tools: {
          issue_refund: {
            ...tool,
            rules: [{ when: { arg: 'amountCents', op: 'gte', value: 100_000 }, then: { quorum: 2 } }],
          },
        },
      },
      { ...refunds, tools: { ...refunds.tools, delete_user: { requireApproval: true } } },
    ];
    const versions = variants.map((v) => definePolicy(v).version);
    expect(versions).not.toContain(base);
    expect(new Set(versions).size).toBe(variants.length);
  });

  it('treats rule order as meaningful, since later rules win', () => {
    const first = { when: { arg: 'a', op: 'gt', value: 1 }, then: { quorum: 2 } } as const;
    const second = { when: { arg: 'b', op: 'eq', value: 'x' }, then: { quorum: 3 } } as const;
    const ab = definePolicy({ tools: { t: { rules: [first, second] } } });
    const ba = definePolicy({ tools: { t: { rules: [second, first] } } });
    expect(ab.version).not.toBe(ba.version);
  });
});
