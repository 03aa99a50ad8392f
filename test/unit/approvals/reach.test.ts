import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { problemLinesFor } from '../../helpers/policy-errors.js';
import { requirementFor } from '../../../src/approvals/requirement-for.js';

const MIN = 60_000;

describe('policy reach: notify, route, reminders, warning, escalation', () => {
  it('defaults to mentions in the thread, a warning 15 minutes before expiry, no reminders and no escalation', () => {
    const policy = definePolicy({ tools: { refund: { requireApproval: true, approvers: ['U0ALICE'] } } });
    expect(requirementFor(policy, 'refund', {}).reach).toEqual({
      notify: 'mentions',
      route: 'thread',
      dmLimit: 10,
      remindLimit: 3,
      warnBeforeMs: 15 * MIN,
      escalateTo: [],
    });
  });

  it('warns a tenth of the wait before expiry when that is shorter than 15 minutes', () => {
    const policy = definePolicy({ defaults: { expiresIn: '30m' } });
    expect(requirementFor(policy, 'any', {}).reach.warnBeforeMs).toBe(3 * MIN);
  });

  it('reads every field, per tool and per rule', () => {
    const policy = definePolicy({
      tools: {
        refund: {
          requireApproval: true,
          approvers: ['S0FINANCE'],
          notify: 'none',
          route: { channel: 'C0APPROVALS' },
          remindAfter: '1h',
          remindLimit: 2,
          warnBefore: '10m',
          escalateAfter: '4h',
          escalateTo: ['U0BOSS', 'S0LEADS', 'U0BOSS'],
          rules: [{ when: { arg: 'amount', op: 'gt', value: 100 }, then: { route: 'dm', dmLimit: 5, notify: 'mentions' } }],
        },
      },
    });
    expect(requirementFor(policy, 'refund', { amount: 5 }).reach).toEqual({
      notify: 'none',
      route: { channel: 'C0APPROVALS' },
      dmLimit: 10,
      remindAfterMs: 60 * MIN,
      remindLimit: 2,
      warnBeforeMs: 10 * MIN,
      escalateAfterMs: 240 * MIN,
      escalateTo: ['S0LEADS', 'U0BOSS'],
    });
    const big = requirementFor(policy, 'refund', { amount: 500 }).reach;
    expect(big).toMatchObject({ notify: 'mentions', route: 'dm', dmLimit: 5 });
  });

  it('keeps the version of a policy that sets none of the new fields', () => {
    // Versions of policies written before reach existed must not change, or every outstanding grant would be refused.
    const policy = definePolicy({ version: 'v1', tools: { refund: { requireApproval: true, approvers: ['U0ALICE'] } } });
    expect(policy.tools.refund).not.toHaveProperty('notify');
    const withReach = definePolicy({ version: 'v1', tools: { refund: { requireApproval: true, approvers: ['U0ALICE'], remindAfter: '1h' } } });
    expect(withReach.version).not.toBe(policy.version);
    const reordered = definePolicy({ version: 'v1', tools: { refund: { remindAfter: 3600, approvers: ['U0ALICE'], requireApproval: true } } });
    expect(reordered.version).toBe(withReach.version);
  });

  it('names each invalid field', () => {
    expect(
      problemLinesFor({
        tools: {
          refund: { notify: 'loud', route: { channel: '#approvals' }, dmLimit: 0, remindLimit: 21, escalateTo: ['alice'] },
          deploy: { route: 'email' },
        },
      }),
    ).toEqual(
      expect.arrayContaining([
        'tools.refund.notify must be "mentions" or "none"',
        expect.stringMatching(/^tools\.refund\.route\.channel must be a Slack channel id \(C… or G…\), got "#approvals"/),
        'tools.refund.dmLimit must be a whole number from 1 to 50',
        'tools.refund.remindLimit must be a whole number from 1 to 20',
        expect.stringMatching(/^tools\.refund\.escalateTo\[0\] must be a Slack user id/),
        expect.stringMatching(/^tools\.deploy\.route must be "thread", "dm" or \{ channel: "C…" \}/),
      ]),
    );
  });

  it('refuses times that could never come before expiry, and half-set escalations and reminders', () => {
    expect(problemLinesFor({ defaults: { expiresIn: '1h', remindAfter: '2h' } })).toEqual([
      'defaults.remindAfter must be shorter than expiresIn (3600s), or no reminder is ever sent',
    ]);
    expect(problemLinesFor({ tools: { refund: { expiresIn: '1h', warnBefore: '1h' } } })).toEqual([
      'tools.refund.warnBefore must be shorter than expiresIn (3600s), or the warning would come before the request exists',
    ]);
    expect(problemLinesFor({ tools: { refund: { escalateAfter: '1h' } } })).toEqual([
      'tools.refund.escalateTo is required when escalateAfter is set (who to escalate to)',
    ]);
    expect(problemLinesFor({ tools: { refund: { escalateTo: ['U0BOSS'] } } })).toEqual([
      'tools.refund.escalateAfter is required when escalateTo is set (when to escalate)',
    ]);
    expect(problemLinesFor({ tools: { refund: { remindLimit: 2 } } })).toEqual([
      'tools.refund.remindAfter is required when remindLimit is set (when to remind)',
    ]);
    expect(problemLinesFor({ tools: { refund: { rules: [{ when: { arg: 'a', op: 'eq', value: 1 }, then: { expiresIn: '10m', remindAfter: '20m' } }] } } })).toEqual([
      'tools.refund.rules[0].then.remindAfter must be shorter than expiresIn (600s), or no reminder is ever sent',
    ]);
  });
});
