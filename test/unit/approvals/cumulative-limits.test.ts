import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { problemsFor } from '../../helpers/policy-errors.js';
import { limitChecksFor } from '../../../src/approvals/limit-checks.js';
import { limitHitsFromRow, limitHitsOf } from '../../../src/approvals/apply-limits.js';
import { requirementFor, requirementOfRequest } from '../../../src/approvals/requirement-for.js';

const HOUR = 3_600_000;

const refundPolicy = () =>
  definePolicy({
    tools: {
      issue_refund: {
        approvers: ['U0FIN'],
        limits: [
          { sum: 'amountCents', by: 'requester', over: '24h', above: 100000, then: { quorum: 2 } },
          { count: true, over: '1h', above: 20, then: { requireApproval: true, approvers: ['U0CFO'] } },
        ],
      },
    },
  });

describe('policy limits: validation', () => {
  it('normalises limits: durations in ms, then as a rule then, only the keys set', () => {
    const policy = refundPolicy();
    expect(policy.tools.issue_refund!.limits).toEqual([
      { sum: 'amountCents', by: 'requester', overMs: 24 * HOUR, above: 100000, then: { quorum: 2 } },
      { count: true, overMs: HOUR, above: 20, then: { requireApproval: true, approvers: ['U0CFO'] } },
    ]);
  });

  it('an entry without limits (or with an empty list) keeps its version and has no limits key', () => {
    const plain = definePolicy({ tools: { issue_refund: { quorum: 1 } } });
    const empty = definePolicy({ tools: { issue_refund: { quorum: 1, limits: [] } } });
    expect(empty.version).toBe(plain.version);
    expect('limits' in plain.tools.issue_refund!).toBe(false);
    expect(refundPolicy().version).not.toBe(plain.version);
  });

  it('a changed limit changes the version', () => {
    const a = definePolicy({ tools: { t: { limits: [{ count: true, over: '1h', above: 20, then: { requireApproval: true } }] } } });
    const b = definePolicy({ tools: { t: { limits: [{ count: true, over: '1h', above: 21, then: { requireApproval: true } }] } } });
    expect(a.version).not.toBe(b.version);
  });

  it.each([
    [{ sum: 'amountCents', count: true, over: '1h', above: 1, then: { quorum: 2 } }, 'tools.t.limits[0].count', /together with "sum"/],
    [{ over: '1h', above: 1, then: { quorum: 2 } }, 'tools.t.limits[0].sum', /"count: true" is required/],
    [{ sum: 'a..b', over: '1h', above: 1, then: { quorum: 2 } }, 'tools.t.limits[0].sum', /dot path/],
    [{ sum: 'amountCents', over: '1 day', above: 1, then: { quorum: 2 } }, 'tools.t.limits[0].over', /duration like/],
    [{ sum: 'amountCents', above: 1, then: { quorum: 2 } }, 'tools.t.limits[0].over', /is required/],
    [{ sum: 'amountCents', over: '1h', above: -1, then: { quorum: 2 } }, 'tools.t.limits[0].above', /at least 0/],
    [{ sum: 'amountCents', over: '1h', then: { quorum: 2 } }, 'tools.t.limits[0].above', /is required/],
    [{ sum: 'amountCents', over: '1h', above: 1, then: {} }, 'tools.t.limits[0].then', /must set at least one/],
    [{ sum: 'amountCents', over: '1h', above: 1, then: { quorum: 0 } }, 'tools.t.limits[0].then.quorum', /at least 1/],
    [{ sum: 'amountCents', by: 'user', over: '1h', above: 1, then: { quorum: 2 } }, 'tools.t.limits[0].by', /"requester"/],
    [{ count: false, over: '1h', above: 1, then: { quorum: 2 } }, 'tools.t.limits[0].count', /must be true/],
    [{ count: true, over: '1h', above: 1, then: { requireApproval: false } }, 'tools.t.limits[0].then.requireApproval', /only tightens/],
    [{ count: true, over: '1h', above: 1, then: { quorum: 2 }, every: 'x' }, 'tools.t.limits[0].every', /not a known field/],
  ])('rejects %j at %s', (limit, field, message) => {
    const problems = problemsFor({ tools: { t: { limits: [limit] } } });
    const problem = problems.find((p) => p.field === field);
    expect(problem, JSON.stringify(problems)).toBeDefined();
    expect(problem!.message).toMatch(message);
  });

  it('rejects limits that are not a list', () => {
    expect(problemsFor({ tools: { t: { limits: { count: true } } } })[0]).toMatchObject({ field: 'tools.t.limits', message: /list of cumulative limits/ });
  });
});

describe('policy limits: what a call adds and what going over changes', () => {
  it('one counter per limit: sum of the argument by requester, count for everyone', () => {
    const checks = limitChecksFor(refundPolicy(), 'issue_refund', { amountCents: 60000 }, 'U0BOB');
    expect(checks).toEqual([
      { limit: 0, toolKey: 'issue_refund', measure: `sum:amountCents@${24 * HOUR}`, subject: 'U0BOB', amount: 60000, windowMs: 24 * HOUR },
      { limit: 1, toolKey: 'issue_refund', measure: `count@${HOUR}`, subject: '*', amount: 1, windowMs: HOUR },
    ]);
  });

  it('limits on an MCP server entry (`server.*`) count all of its tools together', () => {
    const policy = definePolicy({ tools: { 'github.*': { limits: [{ count: true, over: '1h', above: 50, then: { requireApproval: true } }] } } });
    const a = limitChecksFor(policy, 'github__create_issue', {}, 'U0BOB', { server: 'github', tool: 'create_issue' });
    const b = limitChecksFor(policy, 'github__close_issue', {}, 'U0BOB', { server: 'github', tool: 'close_issue' });
    expect(a).toEqual([{ limit: 0, toolKey: 'github.*', measure: `count@${HOUR}`, subject: '*', amount: 1, windowMs: HOUR }]);
    expect(b).toEqual(a);
  });

  it('a missing, non-numeric or negative amount adds 0; a tool without limits has no checks', () => {
    const policy = refundPolicy();
    for (const args of [{}, { amountCents: '90000' }, { amountCents: -50000 }, null]) {
      expect(limitChecksFor(policy, 'issue_refund', args, 'U0BOB')[0]!.amount).toBe(0);
    }
    expect(limitChecksFor(policy, 'other_tool', { amountCents: 5 }, 'U0BOB')).toEqual([]);
  });

  it('only totals above the limit are hits; a hit tightens the requirement after the rules', () => {
    const policy = refundPolicy();
    const limits = policy.tools.issue_refund!.limits!;
    expect(limitHitsOf(limits, [{ limit: 0, total: 100000, subject: 'U0BOB' }, { limit: 1, total: 20, subject: '*' }])).toEqual([]);
    const hits = limitHitsOf(limits, [{ limit: 0, total: 120000, subject: 'U0BOB' }, { limit: 1, total: 3, subject: '*' }]);
    expect(hits).toEqual([{ limit: 0, sum: 'amountCents', by: 'requester', requester: 'U0BOB', total: 120000, above: 100000, overMs: 24 * HOUR }]);

    const plain = requirementFor(policy, 'issue_refund', { amountCents: 60000 });
    expect(plain).toMatchObject({ quorum: 1, requireApproval: false });
    expect(plain.limitHits).toBeUndefined();
    const tightened = requirementFor(policy, 'issue_refund', { amountCents: 60000 }, undefined, hits);
    expect(tightened).toMatchObject({ quorum: 2, approvers: ['U0FIN'], limitHits: hits });

    const counted = requirementFor(policy, 'issue_refund', {}, undefined, limitHitsOf(limits, [{ limit: 1, total: 21, subject: '*' }]));
    expect(counted).toMatchObject({ requireApproval: true, approvers: ['U0CFO'], quorum: 1 });
  });

  it('a limit only tightens: over it, approval is needed, the quorum never drops and self-approval stays off', () => {
    const policy = definePolicy({
      tools: {
        quiet: { limits: [{ sum: 'n', over: '1h', above: 10, then: { quorum: 2 } }] },
        strict: { requireApproval: true, quorum: 3, allowSelfApproval: false, limits: [{ count: true, over: '1h', above: 1, then: { quorum: 2, allowSelfApproval: true } }] },
      },
    });
    const hit = [{ limit: 0, total: 99, subject: '*' }];
    expect(requirementFor(policy, 'quiet', { n: 5 })).toMatchObject({ requireApproval: false, quorum: 1 });
    expect(requirementFor(policy, 'quiet', { n: 5 }, undefined, limitHitsOf(policy.tools.quiet!.limits!, hit))).toMatchObject({ requireApproval: true, quorum: 2 });
    expect(requirementFor(policy, 'strict', {}, undefined, limitHitsOf(policy.tools.strict!.limits!, hit))).toMatchObject({
      requireApproval: true,
      quorum: 3,
      allowSelfApproval: false,
    });
  });

  it('a limit overlays what a matching rule set, so it can only be as strict as it says', () => {
    const policy = definePolicy({
      tools: {
        t: {
          rules: [{ when: { arg: 'n', op: 'gt', value: 5 }, then: { quorum: 3 } }],
          limits: [{ count: true, over: '1h', above: 0, then: { requireApproval: true } }],
        },
      },
    });
    const hits = limitHitsOf(policy.tools.t!.limits!, [{ limit: 0, total: 1, subject: '*' }]);
    expect(requirementFor(policy, 't', { n: 9 }, undefined, hits)).toMatchObject({ requireApproval: true, quorum: 3 });
  });

  it('hits read from a row: anything malformed is dropped', () => {
    expect(limitHitsFromRow(null)).toEqual([]);
    expect(limitHitsFromRow('x')).toEqual([]);
    expect(limitHitsFromRow([{ limit: 0, total: 1, above: 0, overMs: 1 }, { limit: 'a' }, null])).toEqual([{ limit: 0, total: 1, above: 0, overMs: 1 }]);
  });
});

describe('policy limits: a quorum nobody can meet', () => {
  it('is named where the limit sets it', async () => {
    const { unsatisfiableRules } = await import('../../../src/approvals/unsatisfiable-rules.js');
    const policy = definePolicy({ tools: { t: { approvers: ['U0A'], limits: [{ count: true, over: '1h', above: 1, then: { quorum: 2 } }] } } });
    expect(unsatisfiableRules(policy).map((r) => r.field)).toEqual(['tools.t.limits[0]']);
  });
});

describe('policy limits: the README example', () => {
  it('loads from a YAML file as documented', async () => {
    const { readFileSync, writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { loadPolicyFile } = await import('../../../src/approvals/load-policy-file.js');
    const readme = readFileSync(join(import.meta.dirname, '../../../README.md'), 'utf8');
    const yaml = /## Approval policy\n\n```yaml\n([\s\S]*?)```/.exec(readme)![1]!;
    const dir = mkdtempSync(join(tmpdir(), 'limits-'));
    try {
      writeFileSync(join(dir, 'policy.yaml'), yaml);
      const policy = loadPolicyFile(join(dir, 'policy.yaml'));
      expect(policy.tools.issue_refund!.limits).toEqual([{ sum: 'amountCents', by: 'requester', overMs: 24 * HOUR, above: 100000, then: { quorum: 2 } }]);
      expect(policy.tools.delete_records!.limits).toEqual([{ count: true, overMs: HOUR, above: 20, then: { requireApproval: true } }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('requirementOfRequest: a stored request\'s requirement, the limits it went over included', () => {
  const policy = definePolicy({
    tools: {
      issue_refund: {
        requireApproval: true,
        approvers: ['U0A', 'U0B'],
        limits: [
          { sum: 'amountCents', over: '24h', above: 100000, then: { risk: 'high', allowEdit: false } },
          { count: true, over: '1h', above: 5, then: { requireReason: true } },
        ],
      },
    },
  });
  const hit = (limit: number) => ({ limit, total: 1, above: 0, overMs: 1 });

  it('lays the `then` of each stored hit over the rules, as deciding and every view of the request do', () => {
    expect(requirementOfRequest(policy, { tool_name: 'issue_refund', args: {} })).toMatchObject({ risk: 'low', requireReason: false });
    expect(requirementOfRequest(policy, { tool_name: 'issue_refund', args: {}, limit_hits: [hit(0)] })).toMatchObject({ risk: 'high', allowEdit: false, requireReason: false });
    expect(requirementOfRequest(policy, { tool_name: 'issue_refund', args: {}, limit_hits: [hit(1)] })).toMatchObject({ risk: 'low', requireReason: true });
  });

  it('ignores stored hits not shaped like hits, and asks the MCP identity of the call at its path', () => {
    expect(requirementOfRequest(policy, { tool_name: 'issue_refund', args: {}, limit_hits: [{ limit: 0 }, 'x', null] })).toMatchObject({ risk: 'low' });
    const asked: unknown[] = [];
    requirementOfRequest(policy, { tool_name: 'gh__create_issue', args: {}, path: ['ops'] }, (name, path) => (asked.push([name, path]), undefined));
    expect(asked).toEqual([['gh__create_issue', ['ops']]]);
  });
});
