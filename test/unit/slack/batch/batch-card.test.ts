import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { batchCard, batchParts, BATCH_PART_SIZE, type BatchCardData, type BatchMember, batchDeclineMessage, batchDeclineModal, batchDeclineReason } from '../../../../src/slack/batch/batch-card.js';
import { ACTION_IDS, CALLBACK_IDS, parseCardBlockId, parseButtonValue } from '../../../../src/slack/kit/action-ids.js';
import { describeArgs } from '../../../../src/slack/kit/describe-args.js';
import { parseBatchButtonValue } from '../../../../src/slack/batch/batch-click.js';
import { blockLimitErrors, checkedView } from '../../../../src/simulator/index.js';
import { allText, expectNoInjection, expectWellFormed, INJECTION } from '../../../helpers/slack/block-text.js';

const FP = (n: number) => n.toString(16).padStart(4, '0').repeat(16);
const DECIDED = new Date('2030-01-01T12:00:00Z');

function member(actionId: number, over: Partial<BatchMember> = {}): BatchMember {
  return { actionId, toolName: 'delete_record', args: { id: `rec-${actionId}` }, fingerprint: FP(actionId), quorum: 1, approvals: [], state: { kind: 'pending' }, ...over };
}

function data(members: BatchMember[], over: Partial<BatchCardData> = {}): BatchCardData {
  const waiting = members.filter((m) => m.state.kind === 'pending').length;
  return { total: members.length, part: 1, parts: 1, offset: 0, members, waiting, requester: 'U0REQUESTER', approvers: ['U0APPROVER1'], expiresAt: new Date('2030-01-02T03:04:05Z'), ...over };
}

const actionsBlocks = (blocks: KnownBlock[]) => blocks.filter((b): b is ActionsBlock => b.type === 'actions');
const buttons = (blocks: KnownBlock[]) => actionsBlocks(blocks).flatMap((b) => b.elements as Button[]);

describe('batchCard', () => {
  it('shows "N actions need approval", each call with its own Approve and Decline carrying its id and fingerprint, and Approve all / Decline all', () => {
    const blocks = batchCard(data([member(11), member(12), member(13)]));
    expect(blockLimitErrors(blocks)).toEqual([]);
    expectWellFormed(blocks);
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: '3 actions need approval' } });
    const perCall = actionsBlocks(blocks).filter((b) => parseCardBlockId(b.block_id)?.kind === 'approval');
    expect(perCall.map((b) => parseCardBlockId(b.block_id)!.actionId)).toEqual([11, 12, 13]);
    for (const b of perCall) {
      const id = parseCardBlockId(b.block_id)!.actionId;
      const [approve, decline] = b.elements as Button[];
      expect(approve!.action_id).toBe(ACTION_IDS.approve);
      expect(decline!.action_id).toBe(ACTION_IDS.decline);
      expect(parseButtonValue(approve!.value)).toEqual({ actionId: id, fingerprintPrefix: FP(id).slice(0, 16) });
      expect(decline!.value).toBe(approve!.value);
    }
    const all = buttons(blocks).filter((b) => b.action_id === ACTION_IDS.batchApproveAll || b.action_id === ACTION_IDS.batchDeclineAll);
    expect(all.map((b) => b.text.text)).toEqual(['Approve all', 'Decline all']);
    expect(parseBatchButtonValue(all[0]!.value)).toEqual([11, 12, 13].map((a) => ({ actionId: a, fingerprintPrefix: FP(a).slice(0, 16) })));
    expect(allText(blocks)).toContain('Waiting for 3 of 3 decisions');
  });

  it('says who decided each call, drops the buttons of decided calls, and what the run still waits for', () => {
    const blocks = batchCard(
      data([
        member(11, { state: { kind: 'declined', by: 'U0APPROVER1', reason: 'not this one', at: DECIDED } }),
        member(12, { state: { kind: 'approved', by: ['U0APPROVER2'], at: DECIDED } }),
        member(13),
      ]),
    );
    expect(blockLimitErrors(blocks)).toEqual([]);
    const text = allText(blocks);
    expect(text).toContain('Declined by <@U0APPROVER1>: not this one');
    expect(text).toContain('Approved by <@U0APPROVER2>');
    expect(text).toContain('Waiting for 1 of 3 decisions');
    expect(actionsBlocks(blocks).map((b) => b.block_id)).toEqual(['approval:13', 'batch:11']);
    // Approve all names only what is still pending.
    const approveAll = buttons(blocks).find((b) => b.action_id === ACTION_IDS.batchApproveAll)!;
    expect(parseBatchButtonValue(approveAll.value)!.map((m) => m.actionId)).toEqual([13]);
  });

  it('offers Edit for a call that may be edited, and shows what an edit changed on its line, within the limits even for ten long edits', () => {
    const edited = ':pencil2: Edited by <@U0CAROL>: Amount $25.00 → $20.00';
    const blocks = batchCard(data([member(21, { editable: true, editedLine: edited }), member(22)]));
    expect(blockLimitErrors(blocks)).toEqual([]);
    const [first, second] = actionsBlocks(blocks);
    expect((first!.elements as Button[]).map((e) => [e.action_id, e.text.text])).toEqual([
      [ACTION_IDS.approve, 'Approve #1'],
      [ACTION_IDS.edit, 'Edit #1'],
      [ACTION_IDS.decline, 'Decline #1'],
    ]);
    expect((first!.elements as Button[])[1]!.value).toBe((first!.elements as Button[])[0]!.value);
    expect((second!.elements as Button[]).map((e) => e.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.decline]);
    expect(allText(blocks)).toContain(`*1.* `);
    expect(allText(blocks)).toContain(edited);
    // A decided edited call keeps its line, without buttons.
    const decided = batchCard(data([member(21, { editable: true, editedLine: edited, state: { kind: 'approved', by: ['U0CAROL'], at: DECIDED } }), member(22)]));
    expect(allText(decided)).toContain(edited);
    expect(actionsBlocks(decided).map((b) => b.block_id)).toEqual(['approval:22', 'batch:21']);
    const long = batchCard(data(Array.from({ length: BATCH_PART_SIZE }, (_, i) => member(30 + i, { editable: true, editedLine: `:pencil2: Edited by <@U0CAROL>: ${'Note `x` → `y`, '.repeat(200)}` }))));
    expect(blockLimitErrors(long)).toEqual([]);
  });

  it('once all are decided: no buttons, and "All decided: the run continues"', () => {
    const blocks = batchCard(data([member(1, { state: { kind: 'approved', by: ['U0A'], at: DECIDED } }), member(2, { state: { kind: 'expired' } })], { waiting: 0 }));
    expect(blockLimitErrors(blocks)).toEqual([]);
    expect(actionsBlocks(blocks)).toEqual([]);
    expect(allText(blocks)).toContain('All decided: the run continues');
  });

  it('shows quorum progress of a call that needs several approvals', () => {
    const blocks = batchCard(data([member(1, { quorum: 2, approvals: ['U0APPROVER1'] }), member(2)]));
    expect(allText(blocks)).toContain('1 of 2 approvals: <@U0APPROVER1>');
  });

  it('escapes model-controlled tool names and arguments', () => {
    const blocks = batchCard(data([member(1, { toolName: INJECTION, args: { note: INJECTION } }), member(2, { args: INJECTION })]));
    expect(blockLimitErrors(blocks)).toEqual([]);
    expectNoInjection(blocks, ['U0REQUESTER', 'U0APPROVER1']);
  });

  it('stays within Slack limits with huge arguments, many approvers and a full part', () => {
    const huge = { blob: 'x'.repeat(50_000), nested: Array.from({ length: 500 }, (_, i) => ({ i, s: '<&>'.repeat(20) })) };
    const members = Array.from({ length: BATCH_PART_SIZE }, (_, i) => member(i + 1, { toolName: 't'.repeat(300), args: huge, quorum: 3, approvals: Array.from({ length: 2 }, (_, j) => `U0VOTER${j}`) }));
    const blocks = batchCard(data(members, { approvers: Array.from({ length: 400 }, (_, i) => `U0APPROVER${i}`) }));
    expect(blockLimitErrors(blocks)).toEqual([]);
    expect(JSON.stringify(blocks).length).toBeLessThanOrEqual(13_000);
    expect(actionsBlocks(blocks)).toHaveLength(BATCH_PART_SIZE + 1);
  });

  it('splits at the part boundary: 10 calls are one message, 11 are two ("Part 1 of 2"), each within limits', () => {
    expect(batchParts(Array.from({ length: BATCH_PART_SIZE }, (_, i) => i))).toHaveLength(1);
    const eleven = Array.from({ length: BATCH_PART_SIZE + 1 }, (_, i) => member(i + 1));
    const parts = batchParts(eleven);
    expect(parts.map((p) => p.length)).toEqual([BATCH_PART_SIZE, 1]);
    let offset = 0;
    for (const [i, part] of parts.entries()) {
      const blocks = batchCard(data(part, { total: 11, part: i + 1, parts: 2, offset, waiting: 11 }));
      offset += part.length;
      expect(blockLimitErrors(blocks)).toEqual([]);
      expect(blocks.length).toBeLessThanOrEqual(50);
      expect((blocks[0] as { text: { text: string } }).text.text).toBe(`11 actions need approval (part ${i + 1} of 2)`);
      expect(allText(blocks)).toContain('Waiting for 11 of 11 decisions');
      // Block ids are unique within the message.
      const ids = blocks.flatMap((b) => ('block_id' in b && b.block_id ? [b.block_id] : []));
      expect(new Set(ids).size).toBe(ids.length);
    }
    // Numbering carries on across parts.
    expect(allText(batchCard(data(parts[1]!, { total: 11, part: 2, parts: 2, offset: 10, waiting: 11 })))).toContain('*11.*');
  });
});

describe('parseBatchButtonValue', () => {
  it('refuses anything but up to a part of [id, 16-hex fingerprint] pairs without repeats', () => {
    const fp = 'a'.repeat(16);
    expect(parseBatchButtonValue(JSON.stringify({ m: [[1, fp]] }))).toEqual([{ actionId: 1, fingerprintPrefix: fp }]);
    for (const bad of [
      undefined,
      'nope',
      JSON.stringify({ m: [] }),
      JSON.stringify({ m: [[1, 'short']] }),
      JSON.stringify({ m: [[0, fp]] }),
      JSON.stringify({ m: [[1, fp], [1, fp]] }),
      JSON.stringify({ m: Array.from({ length: BATCH_PART_SIZE + 1 }, (_, i) => [i + 1, fp]) }),
      JSON.stringify({ m: [['1', fp]] }),
    ]) {
      expect(parseBatchButtonValue(bad)).toBeUndefined();
    }
  });
});

describe('batchDeclineModal', () => {
  it('asks one optional reason for the pending calls; its metadata binds the submission to them and to the message', () => {
    const members = [1, 2, 3].map((a) => ({ actionId: a, fingerprint: FP(a), toolName: a === 3 ? INJECTION : 'delete_record' }));
    const view = batchDeclineModal({ members, channel: 'C0CHANNEL01', ts: '1700000000.000100' });
    expect(checkedView({ view }, 'modal')).toBe(view);
    expect(view.callback_id).toBe(CALLBACK_IDS.batchDeclineModal);
    expectNoInjection(view.blocks);
    expect(allText(view.blocks)).toContain('Decline the 3 pending calls');
    expect(parseBatchButtonValue(view.private_metadata)).toEqual(members.map((m) => ({ actionId: m.actionId, fingerprintPrefix: m.fingerprint.slice(0, 16) })));
    expect(batchDeclineMessage(view.private_metadata)).toEqual({ channel: 'C0CHANNEL01', ts: '1700000000.000100' });
    expect(batchDeclineMessage('{"c":1}')).toBeUndefined();
    expect(batchDeclineReason({ reason: { reason: { value: '  not now ' } } })).toBe('not now');
    expect(batchDeclineReason({ reason: { reason: { value: '   ' } } })).toBeUndefined();
  });

  it('stays within limits for a full part of long tool names', () => {
    const members = Array.from({ length: BATCH_PART_SIZE }, (_, i) => ({ actionId: i + 1, fingerprint: FP(i + 1), toolName: `t${i}`.repeat(200) }));
    const view = batchDeclineModal({ members, channel: 'C0CHANNEL01', ts: '1700000000.000100' });
    expect(checkedView({ view }, 'modal')).toBe(view);
    expect(view.private_metadata!.length).toBeLessThanOrEqual(3000);
  });
});

function refund(actionId: number, over: Partial<BatchMember> = {}): BatchMember {
  const args = { orderId: `A-${actionId}`, amountCents: 150050 };
  return { actionId, toolName: 'issue_refund', args, fingerprint: FP(actionId), quorum: 1, approvals: [], state: { kind: 'pending' }, ...over };
}

const approveButtons = (blocks: KnownBlock[]) =>
  blocks.filter((b): b is ActionsBlock => b.type === 'actions').flatMap((b) => b.elements as Button[]).filter((b) => b.action_id === ACTION_IDS.approve);

describe('batchCard with described calls', () => {
  it('shows each call in words (title, fields as currency) and confirms Approve of a high-risk one', () => {
    const plain = refund(1, { described: { ...describeArgs('issue_refund', refund(1).args), risk: 'low' } });
    const risky = refund(2, { described: { title: 'Refund $1,500.50 on order A-2', fields: [{ label: 'Order', value: 'A-2' }], risk: 'high' } });
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
    const blocks = batchCard({ total: 1, part: 1, parts: 1, offset: 0, members: [refund(3)], waiting: 1, approvers: [] });
    const text = allText(blocks);
    expect(JSON.stringify(blocks)).not.toContain('confirm');
    expect(text).toContain('`issue_refund` `{"orderId":"A-3","amountCents":150050}`');
  });
});
