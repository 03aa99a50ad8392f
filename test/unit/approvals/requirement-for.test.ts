import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { requirementFor } from '../../../src/approvals/requirement-for.js';

const HOUR = 3_600_000;

const policy = definePolicy({
  version: 'test',
  defaults: { approvers: ['S0OPS'], expiresIn: '4h' },
  tools: {
    issue_refund: {
      requireApproval: true,
      approvers: ['S0FINANCE'],
      allowSelfApproval: false,
      rules: [
        { when: { arg: 'amountCents', op: 'gt', value: 100_000 }, then: { quorum: 2 } },
        { when: { arg: 'amountCents', op: 'gte', value: 1_000_000 }, then: { approvers: ['U0CFO', 'U0CEO'], expiresIn: '1h' } },
        { when: { arg: 'amountCents', op: 'lt', value: 1_000 }, then: { requireApproval: false } },
      ],
    },
    send_email: {
      rules: [
        { when: { arg: 'to.domain', op: 'ne', value: 'example.com' }, then: { requireApproval: true } },
        { when: { arg: 'attachments.0.kind', op: 'in', value: ['invoice', 'contract'] }, then: { quorum: 2 } },
        { when: { arg: 'meta', op: 'eq', value: { priority: 'high', tags: ['a'] } }, then: { expiresIn: '15m' } },
        { when: { arg: 'retries', op: 'lte', value: 0 }, then: { allowSelfApproval: false } },
      ],
    },
  },
});

describe('requirementFor', () => {
  it('uses the defaults for a tool without an entry', () => {
    expect(requirementFor(policy, 'read_file', { path: '/etc/hosts' })).toEqual({
      requireApproval: false,
      approvers: ['S0OPS'],
      allowSelfApproval: true,
      quorum: 1,
      expiresInMs: 4 * HOUR,
      policyVersion: policy.version,
      reach: { notify: 'mentions', route: 'thread', dmLimit: 10, remindLimit: 3, warnBeforeMs: 15 * 60_000, escalateTo: [] },
      risk: 'low',
      requireReason: false,
    });
  });

  it('does not mistake Object.prototype members for tool entries', () => {
    expect(requirementFor(policy, 'constructor', {}).approvers).toEqual(['S0OPS']);
    expect(requirementFor(policy, 'toString', {}).requireApproval).toBe(false);
  });

  it('overlays the tool entry on the defaults', () => {
    expect(requirementFor(policy, 'issue_refund', { amountCents: 5_000 })).toEqual({
      requireApproval: true,
      approvers: ['S0FINANCE'],
      allowSelfApproval: false,
      quorum: 1,
      expiresInMs: 4 * HOUR,
      policyVersion: 'test@' + policy.version.split('@')[1],
      reach: { notify: 'mentions', route: 'thread', dmLimit: 10, remindLimit: 3, warnBeforeMs: 15 * 60_000, escalateTo: [] },
      risk: 'low',
      requireReason: false,
    });
  });

  it('needs two approvers for refunds above 100000 cents', () => {
    expect(requirementFor(policy, 'issue_refund', { amountCents: 100_000 }).quorum).toBe(1);
    expect(requirementFor(policy, 'issue_refund', { amountCents: 100_001 }).quorum).toBe(2);
  });

  it('applies every matching rule in order', () => {
    const huge = requirementFor(policy, 'issue_refund', { amountCents: 1_000_000 });
    expect(huge).toMatchObject({
      requireApproval: true,
      quorum: 2,
      approvers: ['U0CEO', 'U0CFO'],
      expiresInMs: HOUR,
      allowSelfApproval: false,
    });
    expect(requirementFor(policy, 'issue_refund', { amountCents: 999 }).requireApproval).toBe(false);
  });

  it('lets a rule match nothing when the argument is missing or of another type', () => {
    const baseline = requirementFor(policy, 'issue_refund', {});
    expect(baseline.quorum).toBe(1);
    expect(baseline.requireApproval).toBe(true);
    expect(requirementFor(policy, 'issue_refund', { amountCents: '5000000' })).toEqual(baseline);
    expect(requirementFor(policy, 'issue_refund', undefined)).toEqual(baseline);
    expect(requirementFor(policy, 'issue_refund', 'amountCents')).toEqual(baseline);
    // `ne` too: a missing domain is not "a domain other than example.com".
    expect(requirementFor(policy, 'send_email', {}).requireApproval).toBe(false);
  });

  it('follows dot paths through objects and array indices', () => {
    expect(requirementFor(policy, 'send_email', { to: { domain: 'evil.test' } }).requireApproval).toBe(true);
    expect(requirementFor(policy, 'send_email', { to: { domain: 'example.com' } }).requireApproval).toBe(false);
    expect(requirementFor(policy, 'send_email', { attachments: [{ kind: 'invoice' }] }).quorum).toBe(2);
    expect(requirementFor(policy, 'send_email', { attachments: [{ kind: 'photo' }] }).quorum).toBe(1);
    expect(requirementFor(policy, 'send_email', { attachments: { '0': { kind: 'invoice' } } }).quorum).toBe(2);
  });

  it('compares eq values structurally, ignoring key order', () => {
    const matching = { meta: { tags: ['a'], priority: 'high' } };
    expect(requirementFor(policy, 'send_email', matching).expiresInMs).toBe(15 * 60_000);
    expect(requirementFor(policy, 'send_email', { meta: { tags: ['a'], priority: 'low' } }).expiresInMs).toBe(4 * HOUR);
    expect(requirementFor(policy, 'send_email', { meta: { tags: ['a', 'b'], priority: 'high' } }).expiresInMs).toBe(
      4 * HOUR,
    );
    expect(requirementFor(policy, 'send_email', { retries: 0 }).allowSelfApproval).toBe(false);
    expect(requirementFor(policy, 'send_email', { retries: 1 }).allowSelfApproval).toBe(true);
  });

  it('does not walk into prototypes', () => {
    const p = definePolicy({
      tools: { t: { rules: [{ when: { arg: 'constructor.name', op: 'eq', value: 'Object' }, then: { quorum: 5 } }] } },
    });
    expect(requirementFor(p, 't', {}).quorum).toBe(1);
  });

  it('returns a copy the caller may change without touching the policy', () => {
    const requirement = requirementFor(policy, 'issue_refund', {});
    requirement.approvers.push('U0MALLORY');
    expect(policy.tools.issue_refund?.approvers).toEqual(['S0FINANCE']);
    expect(requirementFor(policy, 'issue_refund', {}).approvers).toEqual(['S0FINANCE']);
  });
});
