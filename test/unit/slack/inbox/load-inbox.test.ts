import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Counts the policy evaluations an inbox item costs: like a card, one (its request's view).
const evaluations = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../../src/approvals/requirement-for.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../../src/approvals/requirement-for.js')>();
  return {
    ...original,
    requirementOfRequest: (...args: Parameters<typeof original.requirementOfRequest>) => {
      evaluations.count++;
      return original.requirementOfRequest(...args);
    },
  };
});

const { Agent } = await import('../../../../src/agent/agent.js');
const { definePolicy } = await import('../../../../src/approvals/define-policy.js');
const { inboxItems, inboxRequestOf } = await import('../../../../src/slack/inbox/load-inbox.js');
const { requestOf } = await import('../../../../src/agent/request.js');
const { slackDb } = await import('../../../../src/slack/context.js');
const { createTestDatabase } = await import('../../../helpers/db.js');
const { scriptedModel } = await import('../../../helpers/scripted-model.js');
const { issueRefund, pendingRefundRow } = await import('../../../helpers/pending-request-row.js');
type PendingAction = import('../../../../src/db/rows.js').PendingAction;
type InboxRow = import('../../../../src/db/inbox-requests.js').InboxRow;
type SlackContext = import('../../../../src/slack/context.js').SlackContext;
type TestDatabase = import('../../../helpers/db.js').TestDatabase;

const policy = definePolicy({
  defaults: { requireApproval: true, approvers: ['U0OPS'] },
  tools: {
    issue_refund: {
      approvers: ['U0OPS', 'U0FIN'],
      limits: [{ sum: 'amountCents', by: 'requester', over: '24h', above: 100000, then: { risk: 'high', allowEdit: false, quorum: 2 } }],
    },
  },
});
// Storage is never touched: an item reads the agent's tools and policy, and the Slack tables for its link.
const agent = new Agent({ id: 'ops', model: scriptedModel([{ text: 'hi' }]), tools: { issue_refund: issueRefund }, storage: {} as never, policy });

function row(overrides: Partial<PendingAction> = {}): PendingAction {
  return pendingRefundRow(policy.version, overrides);
}

let database: TestDatabase;
let ctx: SlackContext;
beforeAll(async () => {
  database = await createTestDatabase('pglite');
  ctx = { agent, slackDb: slackDb(database.db) } as unknown as SlackContext;
});
afterAll(async () => {
  await database?.close();
});

describe('inboxItems', () => {
  it('draws each request from one policy evaluation, whatever the item shows', async () => {
    const hit = { limit: 0, sum: 'amountCents', by: 'requester' as const, requester: 'U0REQ', total: 150000, above: 100000, overMs: 86_400_000 };
    const decided: InboxRow = { ...row({ id: 11, status: 'approved', decided_by: 'U0OPS', decided_at: new Date() }), replaced_by: 12 };
    const requests = [
      requestOf(row()),
      requestOf(row({ id: 8, limit_hits: [hit] })),
      requestOf(row({ id: 9, edit: { fromActionId: 7, editor: 'U0OPS', proposedArgs: { orderId: 'A-1', amountCents: 9000 } } })),
      requestOf(row({ id: 10, stated_reason: 'The customer was charged twice', requester: null, caller: 'nightly' })),
      inboxRequestOf(decided),
    ];
    evaluations.count = 0;
    const items = await inboxItems(ctx, requests);
    expect(evaluations.count).toBe(requests.length);

    // What each item says is still what the card would.
    expect(items.get(7)!.call.title).toContain('Issue refund');
    expect(items.get(7)).not.toHaveProperty('highRisk');
    expect(items.get(8)!.highRisk).toEqual({ title: items.get(8)!.call.title });
    // Labelled and formatted from the tool's input schema, as the card's fields are.
    expect(items.get(9)!.edited).toEqual({ editor: 'U0OPS', line: ':pencil2: Edited by <@U0OPS>: Amount $90.00 → $50.00' });
    expect(items.get(10)!.bound).toEqual({ statedReason: 'The customer was charged twice' });
    expect(items.get(10)!.unattended).toEqual({ agent: 'ops', caller: 'nightly' });
    expect(items.get(11)!.replacedBy).toBe(12);
    expect(items.get(11)).not.toHaveProperty('highRisk');
  });
});
