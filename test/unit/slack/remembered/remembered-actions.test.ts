import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { approvalCard, rememberDuration } from '../../../../src/slack/card/approval-card.js';
import { ACTION_IDS } from '../../../../src/slack/kit/action-ids.js';
import { homeView, type InboxData, moreBlock, rememberedBlocks, type RememberedItem } from '../../../../src/slack/inbox/inbox-blocks.js';
import { parseRevokeValue, rememberedCreatedText, rememberedUseBlocks } from '../../../../src/slack/remembered/remembered-actions.js';
import { blockLimitErrors, viewLimitErrors } from '../../../../src/simulator/index.js';
import { approvalCardData } from '../../../helpers/slack/approval-card-data.js';
import { allText } from '../../../helpers/slack/block-text.js';

type Block = Record<string, any>;

function buttonsOf(blocks: KnownBlock[]): Block[] {
  return ((blocks as Block[]).find((b) => b.type === 'actions')?.elements ?? []) as Block[];
}

const item = (over: Partial<RememberedItem> = {}): RememberedItem => ({
  id: 7,
  toolName: 'delete_record',
  call: { title: 'Delete record r1', fields: [{ label: 'Record', value: 'r1' }], own: true },
  requester: 'U0REQUESTER',
  createdBy: 'U0ALICE',
  expiresAt: new Date('2030-01-01T13:00:00Z'),
  ...over,
});

describe('the approval card with rememberFor', () => {
  it('offers Approve and allow for <duration> between Approve and Decline, with the Approve value', () => {
    const blocks = approvalCard(approvalCardData({ rememberFor: 3_600_000 }));
    expect(blockLimitErrors(blocks)).toEqual([]);
    const buttons = buttonsOf(blocks);
    expect(buttons.map((b) => [b.action_id, b.text.text])).toEqual([
      [ACTION_IDS.approve, 'Approve'],
      [ACTION_IDS.approveRemember, 'Approve and allow for 1 hour'],
      [ACTION_IDS.decline, 'Decline'],
      [ACTION_IDS.showArguments, 'Show arguments'],
    ]);
    expect(buttons[1]!.value).toBe(buttons[0]!.value);
  });

  it('has no such button without rememberFor, without a requester, or once decided', () => {
    expect(buttonsOf(approvalCard(approvalCardData())).map((b) => b.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.decline, ACTION_IDS.showArguments]);
    expect(buttonsOf(approvalCard(approvalCardData({ rememberFor: 3_600_000, requester: undefined }))).map((b) => b.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.decline, ACTION_IDS.showArguments]);
    const decided = approvalCard(approvalCardData({ rememberFor: 3_600_000, state: { kind: 'approved', by: ['U0ALICE'], at: new Date() } }));
    expect(buttonsOf(decided)).toEqual([]);
  });

  it.each([
    [3_600_000, '1 hour'],
    [2 * 3_600_000, '2 hours'],
    [30 * 60_000, '30 minutes'],
    [90 * 60_000, '90 minutes'],
    [86_400_000, '1 day'],
    [7 * 86_400_000, '7 days'],
    [45_000, '45 seconds'],
    [1500, '2 seconds'],
  ])('words %i ms as %s', (ms, words) => {
    expect(rememberDuration(ms)).toBe(words);
  });
});

describe('remembered approvals in the Home tab', () => {
  const more = (hidden: number, total: number) => moreBlock('remembered', hidden, total);

  it('lists each with who it is for, who allowed it, until when and a Revoke button naming it', () => {
    const blocks = rememberedBlocks([item()], 10, more) as Block[];
    expect(blockLimitErrors(blocks as KnownBlock[])).toEqual([]);
    expect(blocks[0]!.text.text).toBe('*Remembered approvals* (1)');
    expect(blocks[1]).toMatchObject({ block_id: 'remembered:7', accessory: { action_id: ACTION_IDS.revokeRemembered, value: '7', style: 'danger', text: { text: 'Revoke' } } });
    expect(blocks[1]!.text.text).toMatch(/^\*Delete record r1\* #7\n`delete_record` · for <@U0REQUESTER> · allowed by <@U0ALICE> · until <!date\^1893502800\^[^\n]+\n\*Record\* r1$/);
    expect(parseRevokeValue(blocks[1]!.accessory.value)).toBe(7);
  });

  it('escapes what the model and users wrote, and cuts long arguments', () => {
    const blocks = rememberedBlocks([item({ toolName: 'x<!channel>', call: { title: 'X <!channel>', fields: [{ label: 'Note <!here>', value: '&lt;!here&gt; '.repeat(200) }], own: false }, requester: '<!everyone>' })], 10, more);
    expect(blockLimitErrors(blocks)).toEqual([]);
    expect(allText(blocks)).not.toMatch(/<!(channel|here|everyone)/);
  });

  it('says when there is nothing, and "and N more" past the limit', () => {
    expect(allText(rememberedBlocks([], 10, more))).toContain('No remembered approvals you can revoke.');
    const many = Array.from({ length: 25 }, (_, i) => item({ id: i + 1 }));
    const blocks = rememberedBlocks(many, 10, more);
    expect(blocks).toHaveLength(12);
    expect(allText(blocks)).toContain('…and 15 more.');
    expect(blocks.at(-1)).toMatchObject({ accessory: { action_id: ACTION_IDS.inboxList, value: 'remembered:0', text: { text: 'Show all 25' } } });
  });

  it('fits the Home view with full lists everywhere', () => {
    const waiting = Array.from({ length: 80 }, (_, i) => ({
      call: { title: 'T', fields: [], own: false },
      action: { id: i + 1, toolName: 't', args: {}, fingerprint: 'f'.repeat(64), status: 'pending' as const, requester: 'U0R', quorum: 1, approvals: [], expiresAt: new Date(), createdAt: new Date() },
    }));
    const data: InboxData = { waiting, waitingTotal: 80, waitingBefore: 0, requested: waiting.slice(0, 10), requestedTotal: 80, decided: [], decidedTotal: 0, remembered: Array.from({ length: 30 }, (_, i) => item({ id: i + 1 })) };
    const view = homeView(data);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(viewLimitErrors(view, 'home')).toEqual([]);
    expect(allText(view.blocks)).toContain('*Remembered approvals* (30)');
  });

  it('refuses Revoke values that name nothing', () => {
    for (const value of [undefined, '', '0', '-1', '1.5', '007', '2147483648', '{"a":1}']) expect(parseRevokeValue(value), String(value)).toBeUndefined();
  });
});

describe('the thread note of a remembered use', () => {
  it('names the tool, who allowed it and the request, escaped', () => {
    const blocks = rememberedUseBlocks({ toolName: 'delete_<!here>', actionId: 12, allowedBy: 'U0ALICE', rememberedGrantId: 3, expiresAt: new Date('2030-01-01T13:00:00Z') });
    expect(blockLimitErrors(blocks)).toEqual([]);
    const text = allText(blocks);
    expect(text).toContain('ran under a remembered approval by <@U0ALICE>');
    expect(text).toContain('request #12');
    expect(text).not.toContain('<!here>');
  });
});

describe('the thread note of a remembered approval', () => {
  it('says who allowed which tool for whom, until when, and where to revoke it, escaped', () => {
    const text = rememberedCreatedText({ toolName: 'x<!channel>', allowedBy: 'U0ALICE', requester: 'U0REQUESTER', rememberedGrantId: 4, expiresAt: new Date('2030-01-01T13:00:00Z') });
    expect(text).toContain('<@U0ALICE> allowed identical *x&lt;!channel&gt;* calls by <@U0REQUESTER> until <!date^1893502800^');
    expect(text).toContain('remembered approval #4; revocable in the Home tab');
  });
});

describe('the approval card of a call a remembered approval did not cover', () => {
  const unused = (why: Array<'risk' | 'quorum' | 'approvers' | 'self-approval' | 'reason' | 'limits'>) => ({
    rememberedGrantId: 3,
    allowedBy: 'U0ALICE',
    approvals: 1,
    expiresAt: new Date('2030-01-01T13:00:00Z'),
    why,
  });

  it('says whose remembered approval it was and what the call needs beyond it', () => {
    const blocks = approvalCard(approvalCardData({ quorum: 2, rememberedUnused: unused(['quorum']) }));
    expect(allText(blocks)).toContain("*Remembered approval not used:* <@U0ALICE>'s remembered approval #3 (until <!date^1893502800^");
    expect(allText(blocks)).toContain('does not cover this call, which now needs 2 approvals (it stands for 1).');
    expect(blockLimitErrors(blocks)).toEqual([]);
    const all = allText(approvalCard(approvalCardData({ rememberedUnused: unused(['risk', 'approvers', 'self-approval', 'reason', 'limits']) })));
    expect(all).toContain(
      'which now needs the care of a high-risk action, approval by the approvers listed above, approval by someone other than the requester, a reason with each approval, approval under the cumulative limits it goes over.',
    );
  });

  it('has no such line otherwise', () => {
    expect(allText(approvalCard(approvalCardData()))).not.toContain('Remembered approval not used');
  });
});
