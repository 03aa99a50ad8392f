import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { problemsFor } from '../../helpers/policy-errors.js';
import type { PolicyInput } from '../../../src/approvals/policy-schema.js';
import { requirementFor, type AppliedLayer } from '../../../src/approvals/requirement-for.js';
import { callVerdict, UNATTENDED_DENIAL } from '../../../src/approvals/call-verdict.js';
import { freezeWindowAt, freezesInForce } from '../../../src/approvals/freeze-windows.js';
import type { LimitHit } from '../../../src/approvals/apply-limits.js';

const at = (iso: string) => new Date(iso);

describe('deny', () => {
  const policy = definePolicy({
    defaults: { deny: 'only listed tools may run' },
    tools: {
      search: { requireApproval: false },
      issue_refund: {
        approvers: ['U0FIN'],
        rules: [
          { when: { arg: 'currency', op: 'eq', value: 'BTC' }, then: { deny: 'no refunds in crypto' } },
          { when: { arg: 'amountCents', op: 'gt', value: 100 }, then: { quorum: 2 } },
        ],
        limits: [{ sum: 'amountCents', by: 'requester', over: '24h', above: 500000, then: { deny: 'over the daily refund limit' } }],
      },
      drop_table: { deny: 'never from chat' },
    },
  });

  it("in defaults refuses tools without an entry (an allow-list); an entry is never denied by the defaults' deny", () => {
    expect(requirementFor(policy, 'delete_everything', {}).deny).toEqual({ reason: 'only listed tools may run', source: 'defaults' });
    expect(requirementFor(policy, 'search', {}).deny).toBeUndefined();
    // An MCP tool without an entry falls under the defaults too.
    expect(requirementFor(policy, 'github__create_issue', {}, { server: 'github', tool: 'create_issue', readOnlyHint: true }).deny?.source).toBe('defaults');
  });

  it('in an entry, a matching rule or a limit gone over, names where it came from; a later rule cannot lift it', () => {
    expect(requirementFor(policy, 'drop_table', {}).deny).toEqual({ reason: 'never from chat', source: 'tools.drop_table' });
    const crypto = requirementFor(policy, 'issue_refund', { currency: 'BTC', amountCents: 5000 });
    expect(crypto.deny).toEqual({ reason: 'no refunds in crypto', source: 'tools.issue_refund.rules[0]' });
    expect(crypto.quorum).toBe(2);
    expect(requirementFor(policy, 'issue_refund', { currency: 'USD', amountCents: 5000 }).deny).toBeUndefined();
    const hit: LimitHit = { limit: 0, sum: 'amountCents', by: 'requester', requester: 'U1', total: 600000, above: 500000, overMs: 86_400_000 };
    expect(requirementFor(policy, 'issue_refund', { currency: 'USD', amountCents: 5000 }, undefined, [hit]).deny).toEqual({
      reason: 'over the daily refund limit',
      source: 'tools.issue_refund.limits[0]',
    });
  });

  it('decides the verdict before anything else: a denied call neither runs nor asks, whatever code requires', () => {
    const requirement = requirementFor(policy, 'drop_table', {});
    expect(callVerdict(policy, requirement, { required: true, requester: 'U1' })).toMatchObject({ outcome: 'denied', denial: { source: 'tools.drop_table' } });
    expect(callVerdict(policy, requirement, { required: false, requester: 'U1' }).outcome).toBe('denied');
  });

  it('is validated: a reason, not empty, not too long, and only text', () => {
    expect(problemsFor({ tools: { t: { deny: '' } } })).toEqual([{ field: 'tools.t.deny', message: 'must be the reason the call is refused, not empty' }]);
    expect(problemsFor({ tools: { t: { deny: true } } })[0]?.field).toBe('tools.t.deny');
    expect(problemsFor({ tools: { t: { deny: 'x'.repeat(501) } } })[0]?.message).toMatch(/at most 500/);
  });

  it('leaves the versions of policies that do not use it (or freezes, or unattended) as they were', () => {
    const plain: PolicyInput = { tools: { t: { approvers: ['U01'] } } };
    const version = definePolicy(plain).version;
    // Its version before deny, freezes and unattended existed.
    expect(version).toBe('f2a41b19f4d1eac5');
    expect(definePolicy({ ...plain, unattended: 'require-approval' }).version).not.toBe(version);
    expect(definePolicy({ ...plain, freezes: [{ name: 'f', every: '0 18 * * 5', for: '1h', tools: ['t'], then: { quorum: 2 } }] }).version).not.toBe(version);
    expect(definePolicy({ tools: { t: { approvers: ['U01'], deny: 'no' } } }).version).not.toBe(version);
  });
});

describe('unattended', () => {
  const requirement = (p: ReturnType<typeof definePolicy>) => requirementFor(p, 't', {});
  it('require-approval (the default): a call that needs approval from a run nobody requested asks as usual', () => {
    const p = definePolicy({ tools: { t: { requireApproval: true } } });
    expect(callVerdict(p, requirement(p), { required: true, requester: undefined }).outcome).toBe('asks');
  });
  it('deny: such a call is refused without asking; calls that need no approval still run; a requester makes it attended', () => {
    const p = definePolicy({ unattended: 'deny', tools: { t: { requireApproval: true } } });
    expect(callVerdict(p, requirement(p), { required: true, requester: undefined })).toMatchObject({ outcome: 'denied', denial: { reason: UNATTENDED_DENIAL, source: 'unattended' } });
    expect(callVerdict(p, requirement(p), { required: false, requester: undefined }).outcome).toBe('runs');
    expect(callVerdict(p, requirement(p), { required: true, requester: 'U1' }).outcome).toBe('asks');
  });
  it('accepts only its two values', () => {
    expect(problemsFor({ unattended: 'allow' })).toEqual([{ field: 'unattended', message: 'must be "require-approval" (a person must approve) or "deny"' }]);
  });
});

describe('freezes', () => {
  const policy = definePolicy({
    tools: { deploy: { approvers: ['U0DEV'] }, search: {} },
    freezes: [
      { name: 'holidays', from: '2026-12-20T00:00:00+01:00', to: '2027-01-05T00:00:00Z', tools: ['deploy'], then: { deny: 'Holiday change freeze' } },
      { name: 'weekend', every: '0 18 * * 5', for: '62h', timeZone: 'Europe/Berlin', tools: ['deploy', 'github.*'], then: { quorum: 2, approvers: ['S0SRE'] } },
    ],
  });

  it('normalises windows: instants in UTC, durations in ms, the time zone kept, tools sorted', () => {
    expect(policy.freezes).toEqual([
      { name: 'holidays', from: '2026-12-19T23:00:00.000Z', to: '2027-01-05T00:00:00.000Z', tools: ['deploy'], then: { deny: 'Holiday change freeze' } },
      { name: 'weekend', every: '0 18 * * 5', forMs: 62 * 3_600_000, timeZone: 'Europe/Berlin', tools: ['deploy', 'github.*'], then: { quorum: 2, approvers: ['S0SRE'] } },
    ]);
  });

  it('one window: from included, to not', () => {
    const f = policy.freezes![0]!;
    expect(freezeWindowAt(f, at('2026-12-19T22:59:59.999Z'))).toBeUndefined();
    expect(freezeWindowAt(f, at('2026-12-19T23:00:00.000Z'))).toEqual({ until: at('2027-01-05T00:00:00.000Z') });
    expect(freezeWindowAt(f, at('2027-01-05T00:00:00.000Z'))).toBeUndefined();
  });

  it('recurring windows start in their time zone, across a change of summer time', () => {
    const f = policy.freezes![1]!;
    // Friday 27 March 2026, 18:00 in Berlin is 17:00 UTC (winter time); the clocks go forward on the Sunday.
    expect(freezeWindowAt(f, at('2026-03-27T16:59:00Z'))).toBeUndefined();
    expect(freezeWindowAt(f, at('2026-03-27T17:00:00Z'))).toEqual({ until: at('2026-03-30T07:00:00Z') });
    expect(freezeWindowAt(f, at('2026-03-30T06:59:00Z'))?.until).toEqual(at('2026-03-30T07:00:00Z'));
    expect(freezeWindowAt(f, at('2026-03-30T07:00:00Z'))).toBeUndefined();
    // In summer 18:00 in Berlin is 16:00 UTC.
    expect(freezeWindowAt(f, at('2026-07-03T16:00:00Z'))).toEqual({ until: at('2026-07-06T06:00:00Z') });
  });

  it('back-to-back windows are one freeze, until the last of them ends', () => {
    const daily = definePolicy({ freezes: [{ name: 'nights', every: '0 20 * * *', for: '24h', tools: ['*'], then: { quorum: 2 } }] });
    expect(freezeWindowAt(daily.freezes![0]!, at('2026-05-01T21:00:00Z'))).toEqual({ until: undefined });
    const overlapping = definePolicy({ freezes: [{ name: 'x', every: '0 * * * *', for: '90m', tools: ['*'], then: { quorum: 2 } }] });
    // Every hour for 90 minutes never ends either.
    expect(freezeWindowAt(overlapping.freezes![0]!, at('2026-05-01T21:10:00Z'))).toEqual({ until: undefined });
  });

  it('cover their tools: by name, by MCP pattern, or all with "*"', () => {
    const friday = at('2026-07-03T17:00:00Z');
    expect(freezesInForce(policy, 'deploy', undefined, friday)).toEqual([{ index: 1, name: 'weekend', until: '2026-07-06T06:00:00.000Z' }]);
    expect(freezesInForce(policy, 'search', undefined, friday)).toEqual([]);
    expect(freezesInForce(policy, 'github__merge', { server: 'github', tool: 'merge' }, friday).map((f) => f.name)).toEqual(['weekend']);
  });

  it('tighten what the entry and its rules say, and put their names in the version the request is bound to', () => {
    const friday = at('2026-07-03T17:00:00Z');
    const before = requirementFor(policy, 'deploy', {}, undefined, null, { at: at('2026-07-03T15:59:00Z') });
    expect(before).toMatchObject({ requireApproval: false, quorum: 1, approvers: ['U0DEV'], policyVersion: policy.version });
    expect(before.freezes).toBeUndefined();
    const during = requirementFor(policy, 'deploy', {}, undefined, null, { at: friday });
    expect(during).toMatchObject({ requireApproval: true, quorum: 2, approvers: ['S0SRE'], policyVersion: `${policy.version}+freeze:weekend` });
    expect(during.freezes).toEqual([{ index: 1, name: 'weekend', until: '2026-07-06T06:00:00.000Z' }]);
    const holidays = requirementFor(policy, 'deploy', {}, undefined, null, { at: at('2026-12-25T18:00:00Z') });
    expect(holidays.deny).toEqual({ reason: 'Holiday change freeze', source: 'freezes[0]', freeze: { index: 0, name: 'holidays', until: '2027-01-05T00:00:00.000Z' } });
    expect(holidays.policyVersion).toBe(`${policy.version}+freeze:holidays,weekend`);
  });

  it('list every layer a call was evaluated against, for explain', () => {
    const trace: AppliedLayer[] = [];
    requirementFor(policy, 'deploy', {}, undefined, null, { at: at('2026-07-03T17:00:00Z'), trace });
    expect(trace.map((l) => [l.kind, l.source, l.kind === 'freeze' ? Boolean(l.inForce) : undefined])).toEqual([
      ['entry', 'tools.deploy', undefined],
      ['freeze', 'freezes[0]', false],
      ['freeze', 'freezes[1]', true],
    ]);
  });

  it('are validated, each problem where it is', () => {
    const base = { name: 'f', tools: ['deploy'], then: { quorum: 2 } };
    expect(problemsFor({ freezes: [{ ...base, from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }] })).toEqual([{ field: 'freezes[0].to', message: 'must be later than "from"' }]);
    expect(problemsFor({ freezes: [{ ...base, from: '2026-01-01T00:00', to: '2026-01-02T00:00:00Z' }] })[0]).toMatchObject({ field: 'freezes[0].from', message: expect.stringMatching(/with its offset/) });
    expect(problemsFor({ freezes: [{ ...base, from: '2026-01-01T00:00:00Z' }] })).toEqual([{ field: 'freezes[0].to', message: 'is required with "from"' }]);
    expect(problemsFor({ freezes: [{ ...base, from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', every: '0 18 * * 5', for: '1h' }] })[0]?.message).toMatch(/one window \(from, to\) or recurring windows/);
    expect(problemsFor({ freezes: [{ ...base, every: '0 25 * * *', for: '1h' }] })[0]).toMatchObject({ field: 'freezes[0].every', message: expect.stringMatching(/cron expression/) });
    expect(problemsFor({ freezes: [{ ...base, every: '0 18 * * 5' }] })).toEqual([{ field: 'freezes[0].for', message: 'is required with "every" (how long each window lasts, e.g. "62h")' }]);
    expect(problemsFor({ freezes: [{ ...base, every: '0 18 * * 5', for: '1h', timeZone: 'Mars/Olympus' }] })[0]).toMatchObject({ field: 'freezes[0].timeZone', message: expect.stringMatching(/IANA time zone/) });
    expect(problemsFor({ freezes: [base] })[0]?.message).toMatch(/"to" \(one window\), or "every" and "for"/);
    expect(problemsFor({ freezes: [{ ...base, tools: [] , every: '0 18 * * 5', for: '1h' }] })).toEqual([{ field: 'freezes[0].tools', message: 'must name at least one tool (or "*" for every tool)' }]);
    expect(problemsFor({ freezes: [{ ...base, every: '0 18 * * 5', for: '1h', then: { requireApproval: false } }] })[0]).toMatchObject({ field: 'freezes[0].then.requireApproval' });
    expect(problemsFor({ freezes: [{ ...base, every: '0 18 * * 5', for: '1h' }, { ...base, every: '0 18 * * 6', for: '1h' }] })).toEqual([{ field: 'freezes[1].name', message: 'must be unique: another freeze is called "f"' }]);
    expect(problemsFor({ freezes: [{ ...base, every: '0 18 * * 5', for: '1h', until: 'x' }] })).toEqual([{ field: 'freezes[0].until', message: 'is not a known field' }]);
  });
});
