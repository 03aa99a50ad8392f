import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { policyErrorFor } from '../../helpers/policy-errors.js';
import { requirementFor } from '../../../src/approvals/requirement-for.js';

const HOUR = 3_600_000;

describe('definePolicy: normalisation', () => {
  it('fills every setting with the built-in defaults', () => {
    const policy = definePolicy({});
    expect(policy.defaults).toEqual({
      requireApproval: false,
      approvers: [],
      allowSelfApproval: true,
      quorum: 1,
      expiresInMs: 24 * HOUR,
    });
    expect(policy.tools).toEqual({});
    expect(policy.version).toMatch(/^[0-9a-f]{16}$/);
    expect(policy.label).toBeUndefined();
  });

  it('merges defaults into each tool and keeps rules in order with durations in ms', () => {
    const policy = definePolicy({
      version: 'prod-2024-06',
      defaults: { requireApproval: true, approvers: ['S0FINANCE', 'U0ALICE', 'U0ALICE'], expiresIn: '15m' },
      tools: {
        issue_refund: {
          allowSelfApproval: false,
          rules: [
            { when: { arg: 'amountCents', op: 'gt', value: 100_000 }, then: { quorum: 2, expiresIn: 3600 } },
            { when: { arg: 'currency', op: 'in', value: ['EUR', 'GBP'] }, then: { approvers: ['U0BOB'] } },
          ],
        },
      },
    });
    expect(policy.label).toBe('prod-2024-06');
    expect(policy.version).toMatch(/^prod-2024-06@[0-9a-f]{16}$/);
    expect(policy.defaults.approvers).toEqual(['S0FINANCE', 'U0ALICE']);
    expect(policy.tools.issue_refund).toEqual({
      requireApproval: true,
      approvers: ['S0FINANCE', 'U0ALICE'],
      allowSelfApproval: false,
      quorum: 1,
      expiresInMs: 15 * 60_000,
      rules: [
        { when: { arg: 'amountCents', op: 'gt', value: 100_000 }, then: { quorum: 2, expiresInMs: HOUR } },
        { when: { arg: 'currency', op: 'in', value: ['EUR', 'GBP'] }, then: { approvers: ['U0BOB'] } },
      ],
    });
  });

  it.each([
    [90, 90_000],
    ['90s', 90_000],
    ['15m', 900_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
  ])('reads expiresIn %j as %d ms', (expiresIn, ms) => {
    expect(definePolicy({ defaults: { expiresIn } }).defaults.expiresInMs).toBe(ms);
  });

  it('returns a deeply frozen policy that does not share objects with the input', () => {
    const values = [{ region: 'eu' }];
    const policy = definePolicy({
      tools: { t: { rules: [{ when: { arg: 'x', op: 'in', value: values }, then: { quorum: 1 } }] } },
    });
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy.defaults.approvers)).toBe(true);
    expect(Object.isFrozen(policy.tools.t!.rules[0]!.when)).toBe(true);
    expect(Object.isFrozen(values[0])).toBe(false);
    expect(() => {
      (policy.defaults as { quorum: number }).quorum = 5;
    }).toThrow(TypeError);
  });
});

describe('definePolicy: validation', () => {
  it('throws a typed PolicyError naming the field', () => {
    const error = policyErrorFor({ tools: { issue_refund: { quorum: 0 } } });
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.name).toBe('PolicyError');
    expect(error.field).toBe('tools.issue_refund.quorum');
    expect(error.message).toBe('Invalid policy: tools.issue_refund.quorum must be a whole number of at least 1');
  });

  it.each<[string, unknown, string, RegExp]>([
    ['unknown top-level field', { tool: {} }, 'tool', /tool is not a known field/],
    ['unknown defaults field', { defaults: { quorom: 2 } }, 'defaults.quorom', /not a known field/],
    ['unknown tool field', { tools: { t: { approver: ['U0A1'] } } }, 'tools.t.approver', /not a known field/],
    [
      'unknown field in a rule condition',
      { tools: { t: { rules: [{ when: { arg: 'a', op: 'gt', value: 1, unit: 'usd' }, then: { quorum: 2 } }] } } },
      'tools.t.rules[0].when.unit',
      /not a known field/,
    ],
    [
      'unknown field in a rule result',
      { tools: { t: { rules: [{ when: { arg: 'a', op: 'gt', value: 1 }, then: { quorum: 2, notifyAll: true } }] } } },
      'tools.t.rules[0].then.notifyAll',
      /not a known field/,
    ],
    ['requireApproval as a string', { defaults: { requireApproval: 'yes' } }, 'defaults.requireApproval', /true or false/],
    ['quorum as a string', { tools: { t: { quorum: '2' } } }, 'tools.t.quorum', /whole number/],
    ['fractional quorum', { tools: { t: { quorum: 1.5 } } }, 'tools.t.quorum', /whole number/],
    ['approvers not a list', { tools: { t: { approvers: 'U0A1' } } }, 'tools.t.approvers', /list of Slack/],
    ['approver that is a name', { tools: { t: { approvers: ['U0A1', '@alice'] } } }, 'tools.t.approvers[1]', /"@alice"/],
    ['lower-case approver id', { defaults: { approvers: ['u0a1'] } }, 'defaults.approvers[0]', /Slack user id/],
    ['expiresIn in an unknown unit', { defaults: { expiresIn: '2w' } }, 'defaults.expiresIn', /"2w"/],
    ['zero expiresIn', { defaults: { expiresIn: 0 } }, 'defaults.expiresIn', /positive/],
    ['fractional seconds', { defaults: { expiresIn: 1.5 } }, 'defaults.expiresIn', /whole number of seconds/],
    ['expiresIn over a year', { defaults: { expiresIn: '400d' } }, 'defaults.expiresIn', /365 days/],
    ['expiresIn as a boolean', { defaults: { expiresIn: true } }, 'defaults.expiresIn', /number of seconds/],
    [
      'unknown operator',
      { tools: { t: { rules: [{ when: { arg: 'a', op: 'between', value: 1 }, then: { quorum: 2 } }] } } },
      'tools.t.rules[0].when.op',
      /one of gt, gte, lt, lte, eq, ne, in, got "between"/,
    ],
    [
      'gt with a string value',
      { tools: { t: { rules: [{ when: { arg: 'a', op: 'gt', value: '100' }, then: { quorum: 2 } }] } } },
      'tools.t.rules[0].when.value',
      /must be a number/,
    ],
    [
      'in without a list',
      { tools: { t: { rules: [{ when: { arg: 'a', op: 'in', value: 'EUR' }, then: { quorum: 2 } }] } } },
      'tools.t.rules[0].when.value',
      /list of values/,
    ],
    [
      'eq without a value',
      { tools: { t: { rules: [{ when: { arg: 'a', op: 'eq' }, then: { quorum: 2 } }] } } },
      'tools.t.rules[0].when.value',
      /is required/,
    ],
    [
      'empty arg path segment',
      { tools: { t: { rules: [{ when: { arg: 'refund..amount', op: 'gt', value: 1 }, then: { quorum: 2 } }] } } },
      'tools.t.rules[0].when.arg',
      /dot path/,
    ],
    [
      'rule that changes nothing',
      { tools: { t: { rules: [{ when: { arg: 'a', op: 'gt', value: 1 }, then: {} }] } } },
      'tools.t.rules[0].then',
      /at least one of/,
    ],
    ['rule without then', { tools: { t: { rules: [{ when: { arg: 'a', op: 'gt', value: 1 } }] } } }, 'tools.t.rules[0].then', /is required/],
    ['tool entry not a map', { tools: { t: true } }, 'tools.t', /map of settings/],
    ['label containing @', { version: 'v1@abc' }, 'version', /without "@"/],
    ['empty tool name', { tools: { '': {} } }, 'tools[""]', /must not be empty/],
    ['dotted tool name', { tools: { 'github.create_issue': { quorum: 0 } } }, 'tools["github.create_issue"].quorum', /whole number/],
  ])('rejects %s', (_name, input, field, message) => {
    const error = policyErrorFor(input);
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
    expect(error.message).toMatch(message);
  });

  it('rejects a policy that is not a map, without a field', () => {
    const error = policyErrorFor(['tools']);
    expect(error.field).toBe('');
    expect(error.message).toMatch(/^Invalid policy: the policy must be a map/);
  });

  it('loads a quorum the listed users can never reach: it fails closed, and unsatisfiableRules reports it', () => {
    const policy = definePolicy({ tools: { t: { approvers: ['U0A1', 'U0A2'], quorum: 3 } } });
    expect(policy.tools.t).toMatchObject({ approvers: ['U0A1', 'U0A2'], quorum: 3 });
  });

  it('reports every problem, so a file can be fixed in one pass', () => {
    const error = policyErrorFor({ defaults: { quorum: 0 }, tools: { t: { expiresIn: 'soon', extra: 1 } } });
    expect(error.problems.map((p) => p.field)).toEqual(
      expect.arrayContaining(['defaults.quorum', 'tools.t.expiresIn', 'tools.t.extra']),
    );
    expect(error.message.split('\n')).toHaveLength(1 + error.problems.length);
  });
});

describe('edit settings', () => {
  it('allowEdit and keepApprovalsOnEdit are optional, reach the requirement only when set, and keep older policies\' versions', () => {
    const plain = definePolicy({ tools: { refund: { requireApproval: true } } });
    const set = definePolicy({ tools: { refund: { requireApproval: true, allowEdit: false, keepApprovalsOnEdit: true } } });
    expect(requirementFor(plain, 'refund', {})).not.toHaveProperty('allowEdit');
    expect(requirementFor(plain, 'refund', {})).not.toHaveProperty('keepApprovalsOnEdit');
    expect(requirementFor(set, 'refund', {})).toMatchObject({ allowEdit: false, keepApprovalsOnEdit: true });
    expect(set.version).not.toBe(plain.version);
    expect(definePolicy({ tools: { refund: { requireApproval: true } } }).version).toBe(plain.version);
    expect(() => definePolicy({ tools: { refund: { allowEdit: 'no' as never } } })).toThrow(/allowEdit must be true or false/);
  });
});
