import { describe, expect, it, vi } from 'vitest';

// Counts the policy evaluations a view costs: the point of viewRequest is that it is one.
const evaluations = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/approvals/requirement-for.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/approvals/requirement-for.js')>();
  return {
    ...original,
    requirementOfRequest: (...args: Parameters<typeof original.requirementOfRequest>) => {
      evaluations.count++;
      return original.requirementOfRequest(...args);
    },
  };
});

const { Agent } = await import('../../../src/agent/agent.js');
const { definePolicy } = await import('../../../src/approvals/define-policy.js');
const { requestOf } = await import('../../../src/agent/request.js');
const { scriptedModel } = await import('../../helpers/scripted-model.js');
const { issueRefund, pendingRefundRow } = await import('../../helpers/pending-request-row.js');
const { renderCard } = await import('../../../src/slack/card/render-card.js');
type PendingAction = import('../../../src/db/rows.js').PendingAction;

const policy = definePolicy({
  defaults: { requireApproval: true, approvers: ['U0OPS'] },
  tools: {
    issue_refund: {
      approvers: ['U0OPS', 'U0FIN'],
      rememberFor: '1h',
      limits: [{ sum: 'amountCents', by: 'requester', over: '24h', above: 100000, then: { risk: 'high', allowEdit: false, quorum: 2 } }],
    },
  },
});
// Storage is never touched: a view reads the agent's tools and policy only.
const agent = new Agent({ id: 'ops', model: scriptedModel([{ text: 'hi' }]), tools: { issue_refund: issueRefund }, storage: {} as never, policy });

function row(overrides: Partial<PendingAction> = {}): PendingAction {
  return pendingRefundRow(policy.version, overrides);
}

describe('Agent.viewRequest', () => {
  it('answers everything a card asks with one policy evaluation', () => {
    evaluations.count = 0;
    const view = agent.viewRequest(row());
    expect(evaluations.count).toBe(1);
    expect(view.kind).toBe('approval');
    expect(view.tool).toBe(issueRefund);
    expect(view.approvers).toEqual(['U0FIN', 'U0OPS'].sort());
    expect(view.description.risk).toBe('low');
    expect(view.editSchema).toMatchObject({ type: 'object' });
    expect(view.rememberFor).toBe(3_600_000);
    expect(view.request).toMatchObject({ id: 7, toolName: 'issue_refund', runId: 'run-1', requester: 'U0REQ', path: [] });
  });

  it('counts the limits the request went over in every answer (risk, edit, remember)', () => {
    const hit = { limit: 0, sum: 'amountCents', by: 'requester' as const, requester: 'U0REQ', total: 150000, above: 100000, overMs: 86_400_000 };
    const view = agent.viewRequest(row({ limit_hits: [hit] }));
    expect(view.requirement.limitHits).toEqual([hit]);
    expect(view.requirement.quorum).toBe(2);
    expect(view.description.risk).toBe('high');
    expect(view.editSchema).toBeUndefined();
    // High risk is never remembered.
    expect(view.rememberFor).toBeUndefined();
  });

  it('offers no remembering once the request is decided, and tells an unreachable quorum only of a pending approval', async () => {
    expect(agent.viewRequest(row({ status: 'approved' })).rememberFor).toBeUndefined();
    // Two approvers listed, one of them the requester: a quorum of 3 cannot be met.
    const short = agent.viewRequest(row({ quorum: 3 }));
    await expect(short.unreachableQuorum('U0BOT')).resolves.toEqual({ eligible: 2 });
    await expect(agent.viewRequest(row({ quorum: 3, status: 'declined' })).unreachableQuorum('U0BOT')).resolves.toBeUndefined();
    await expect(agent.viewRequest(row()).unreachableQuorum('U0BOT')).resolves.toBeUndefined();
  });

  it('reads a row in camelCase, dates as dates and absent facts left out', () => {
    const request = requestOf(row({ requester: null, expires_at: null, path: ['ops'] }));
    expect(request.createdAt).toBeInstanceOf(Date);
    expect('requester' in request).toBe(false);
    expect('expiresAt' in request).toBe(false);
    expect(request.path).toEqual(['ops']);
    const unused = { rememberedGrantId: 3, allowedBy: 'U0OPS', approvals: 1, expiresAt: '2026-07-01T00:00:00.000Z', why: ['limits', 'nonsense'] };
    expect(requestOf(row({ remembered_unused: unused })).rememberedUnused).toEqual({ ...unused, expiresAt: new Date(unused.expiresAt), why: ['limits'] });
    expect(requestOf(row({ remembered_unused: { rememberedGrantId: 'x' } })).rememberedUnused).toBeUndefined();
  });

  it('a card draw asks the policy once (it used to ask about six times)', () => {
    evaluations.count = 0;
    renderCard(agent, requestOf(row()), { blocked: false });
    expect(evaluations.count).toBe(1);
  });
});
