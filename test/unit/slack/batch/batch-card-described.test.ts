import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { batchCard, type BatchMember } from '../../../../src/slack/batch/batch-card.js';
import { ACTION_IDS } from '../../../../src/slack/kit/action-ids.js';
import { describeArgs } from '../../../../src/slack/kit/describe-args.js';
import { blockLimitErrors } from '../../../../src/simulator/index.js';
import { allText } from '../../../helpers/slack/block-text.js';

const FP = (n: number) => n.toString(16).padStart(4, '0').repeat(16);

function member(actionId: number, over: Partial<BatchMember> = {}): BatchMember {
  const args = { orderId: `A-${actionId}`, amountCents: 150050 };
  return { actionId, toolName: 'issue_refund', args, fingerprint: FP(actionId), quorum: 1, approvals: [], state: { kind: 'pending' }, ...over };
}

const approveButtons = (blocks: KnownBlock[]) =>
  blocks.filter((b): b is ActionsBlock => b.type === 'actions').flatMap((b) => b.elements as Button[]).filter((b) => b.action_id === ACTION_IDS.approve);

describe('batchCard with described calls', () => {
  it('shows each call in words (title, fields as currency) and confirms Approve of a high-risk one', () => {
    const plain = member(1, { described: { ...describeArgs('issue_refund', member(1).args), risk: 'low' } });
    const risky = member(2, { described: { title: 'Refund $1,500.50 on order A-2', fields: [{ label: 'Order', value: 'A-2' }], risk: 'high' } });
    const blocks = batchCard({ total: 2, part: 1, parts: 1, offset: 0, members: [plain, risky], waiting: 2, approvers: [], expiresAt: new Date('2030-01-02T03:04:05Z') });
    expect(blockLimitErrors(blocks)).toEqual([]);
    const text = allText(blocks);
    expect(text).toContain('*1.* *Issue refund* (`issue_refund`)');
    expect(text).toContain('Amount: $1,500.50');
    expect(text).not.toContain('150050');
    expect(text).toContain('*Refund $1,500.50 on order A-2* (`issue_refund`) :warning: high-risk');
    const [first, second] = approveButtons(blocks);
    expect(first!.confirm).toBeUndefined();
    expect(second!.confirm).toMatchObject({ style: 'danger', text: { text: expect.stringContaining('Refund $1,500.50 on order A-2') } });
    const all = blocks.filter((b): b is ActionsBlock => b.type === 'actions').flatMap((b) => b.elements as Button[]).find((b) => b.action_id === ACTION_IDS.batchApproveAll);
    expect(all!.confirm).toMatchObject({ style: 'danger', text: { text: expect.stringContaining('Refund $1,500.50 on order A-2') } });
  });

  it('falls back to the arguments as JSON for a call without a description', () => {
    const blocks = batchCard({ total: 1, part: 1, parts: 1, offset: 0, members: [member(3)], waiting: 1, approvers: [] });
    const text = allText(blocks);
    expect(JSON.stringify(blocks)).not.toContain('confirm');
    expect(text).toContain('`issue_refund` `{"orderId":"A-3","amountCents":150050}`');
  });
});
