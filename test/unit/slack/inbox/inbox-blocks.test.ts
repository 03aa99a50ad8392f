import { describe, expect, it } from 'vitest';
import { ACTION_IDS, approvalButtonValue, parseButtonValue } from '../../../../src/slack/kit/action-ids.js';
import { HOME_FIT, homeView, threadLink, inboxBlocks, MESSAGE_FIT, requestBlocks, type InboxData, type InboxItem, inboxListModal, LIST_PAGE, inboxListValue, parseInboxListValue } from '../../../../src/slack/inbox/inbox-blocks.js';
import { parseInboxPage } from '../../../../src/slack/inbox/home-refresher.js';
import { LIMITS } from '../../../../src/slack/kit/limits.js';
import { blockLimitErrors, viewLimitErrors } from '../../../../src/simulator/index.js';
import { parseApprovalsCommand } from '../../../../src/slack/inbox/inbox-actions.js';
import { allText, expectNoInjection, INJECTION } from '../../../helpers/slack/block-text.js';

const FINGERPRINT = 'ab'.repeat(32);
const CREATED = new Date('2030-01-01T10:00:00Z');

/** A refund as a tool with describe() words it; fields as the card shows them. */
const refundCall = (id: number) => ({ title: `Refund $25.00 on order A-${id}`, fields: [{ label: 'Amount', value: '$25.00' }, { label: 'Order', value: `A-${id}` }], own: true });

function item(id: number, over: Partial<InboxItem['action']> = {}, link?: string): InboxItem {
  return {
    call: refundCall(id),
    action: {
      id,
      toolName: 'issue_refund',
      args: { orderId: `A-${id}`, amountCents: 2500 },
      fingerprint: FINGERPRINT,
      status: 'pending',
      requester: 'U0REQUESTER',
      quorum: 1,
      approvals: [],
      expiresAt: new Date('2030-01-02T10:00:00Z'),
      createdAt: CREATED,
      ...over,
    },
    ...(link ? { link } : {}),
  };
}

function data(over: Partial<InboxData> = {}): InboxData {
  return { waiting: [], waitingTotal: 0, waitingBefore: 0, requested: [], requestedTotal: 0, decided: [], decidedTotal: 0, ...over };
}

const buttonsOf = (blocks: readonly unknown[]) => (blocks as Array<{ type: string }>).filter((b) => b.type === 'actions') as unknown as Array<{ block_id: string; elements: Array<{ action_id: string; value: string; style: string }> }>;

describe('inboxBlocks', () => {
  it('a request nobody requested says what asked for it, and keeps its buttons; its binding is told in a line, escaped', () => {
    const unattended: InboxItem = {
      ...item(8, { requester: undefined }),
      unattended: { agent: 'ops', caller: `nightly ${INJECTION}` },
      bound: { statedReason: `Cleanup ${INJECTION}`, freezes: [{ name: 'weekend', until: new Date('2030-01-03T00:00:00Z') }] },
    };
    const blocks = inboxBlocks(data({ waiting: [unattended], waitingTotal: 1 }), HOME_FIT);
    expect(blockLimitErrors(blocks)).toEqual([]);
    expectNoInjection(blocks, ['U0REQUESTER']);
    const text = allText(blocks);
    expect(text).toContain('requested by no person — by agent `ops` (nightly &lt;!channel&gt;');
    expect(text).toContain(':snowflake: freeze `weekend` until <!date^');
    expect(text).toContain(':speech_balloon: the agent says: “Cleanup &lt;!channel&gt;');
    expect(buttonsOf(blocks).map((b) => b.block_id)).toEqual(['approval:8']);
    expect(allText(requestBlocks(unattended, true))).toContain('requested by no person — by agent `ops`');
  });

  it('an empty inbox says so in each section', () => {
    const text = allText(inboxBlocks(data(), HOME_FIT));
    expect(text).toContain('*Waiting for you* (0)');
    expect(text).toContain('Nothing is waiting for your decision.');
    expect(text).toContain('You have not asked for anything that needs approval.');
    expect(text).toContain('You have not decided any requests yet.');
  });

  it('each waiting request has the card’s Approve and Decline under the inbox action ids, with the card’s value and block id', () => {
    const blocks = inboxBlocks(data({ waiting: [item(7, { quorum: 2, approvals: [{ userId: 'U0BOB', at: '2030-01-01T11:00:00Z' }] }, 'https://t.slack.com/archives/C1/p1')], waitingTotal: 1 }), HOME_FIT);
    const [actions] = buttonsOf(blocks);
    expect(actions!.block_id).toBe('approval:7');
    expect(actions!.elements.map((e) => [e.action_id, e.style])).toEqual([
      [ACTION_IDS.inboxApprove, 'primary'],
      [ACTION_IDS.inboxDecline, 'danger'],
    ]);
    expect(actions!.elements[0]!.value).toBe(approvalButtonValue(7, FINGERPRINT));
    expect(parseButtonValue(actions!.elements[1]!.value)).toEqual({ actionId: 7, fingerprintPrefix: FINGERPRINT.slice(0, 16) });
    const text = allText(blocks);
    expect(text).toContain('*Refund $25.00 on order A-7* #7 · <https://t.slack.com/archives/C1/p1|open thread>');
    expect(text).toContain('`issue_refund` · requested by <@U0REQUESTER>');
    expect(text).toContain('1 of 2 approvals');
    expect(text).toContain('*Amount* $25.00 · *Order* A-7');
    expect(text).not.toContain('amountCents');
  });

  it('a call whose title is only its tool’s name in words says its arguments on each one-line listing too', () => {
    const plain = { ...item(3, { status: 'approved', decidedBy: 'U0ALICE' }), call: { title: 'Delete record', fields: [{ label: 'Id', value: 'r-3' }], own: false } };
    const text = allText(inboxBlocks(data({ requested: [plain], requestedTotal: 1 }), HOME_FIT));
    expect(text).toContain('*Delete record* (*Id* r-3) #3 — :white_check_mark: approved by <@U0ALICE>');
    const own = allText(inboxBlocks(data({ requested: [item(4)], requestedTotal: 1 }), HOME_FIT));
    expect(own).toContain('*Refund $25.00 on order A-4* #4 — :hourglass_flowing_sand: waiting');
  });

  it('an edited request says who edited it and which request it goes on as; the new one says what changed', () => {
    const closed = { ...item(5, { status: 'edited', decidedBy: 'U0BOB', decidedAt: CREATED }), replacedBy: 6 };
    const replacement = { ...item(6, { status: 'approved', decidedBy: 'U0BOB', decidedAt: CREATED }), edited: { editor: 'U0BOB', line: ':pencil2: Edited by <@U0BOB>: Amount $25.00 → $15.00' } };
    const text = allText(inboxBlocks(data({ requested: [replacement, closed], requestedTotal: 2 }), HOME_FIT));
    expect(text).toMatch(/#5 — :pencil2: edited by <@U0BOB> <!date\^[^>]+>; it goes on as #6/);
    expect(text).toMatch(/#6 — :white_check_mark: approved by <@U0BOB> <!date\^[^>]+> \(edited by <@U0BOB>\)/);
    const one = allText(requestBlocks(replacement, false));
    expect(one).toContain(':pencil2: Edited by <@U0BOB>: Amount $25.00 → $15.00');
  });

  it('a high-risk request\'s Approve asks to confirm, naming the action, as the card\'s does', () => {
    const blocks = inboxBlocks(data({ waiting: [{ ...item(7), highRisk: { title: 'Refund $25.00 on order A-7' } }, item(8)], waitingTotal: 2 }), MESSAGE_FIT);
    expect(blockLimitErrors(blocks)).toEqual([]);
    const [risky, plain] = buttonsOf(blocks) as unknown as Array<{ elements: Array<{ action_id: string; confirm?: { text: { text: string }; style: string } }> }>;
    expect(risky!.elements[0]!.confirm).toMatchObject({ text: { text: expect.stringContaining('Refund $25.00 on order A-7') }, style: 'danger' });
    expect(risky!.elements[1]!.confirm).toBeUndefined();
    expect(plain!.elements[0]!.confirm).toBeUndefined();
  });

  it('requested and decided requests show where each stands, without buttons', () => {
    const blocks = inboxBlocks(
      data({
        requested: [item(1), item(2, { status: 'approved', decidedBy: 'U0ALICE', decidedAt: CREATED }), item(3, { status: 'expired', decidedAt: CREATED })],
        requestedTotal: 3,
        decided: [item(4, { status: 'declined', decidedBy: 'U0ME', decidedAt: CREATED })],
        decidedTotal: 1,
      }),
      HOME_FIT,
    );
    expect(buttonsOf(blocks)).toEqual([]);
    const text = allText(blocks);
    expect(text).toContain('#1 — :hourglass_flowing_sand: waiting');
    expect(text).toMatch(/#2 — :white_check_mark: approved by <@U0ALICE> <!date\^/);
    expect(text).toMatch(/#3 — :hourglass: expired/);
    expect(text).toMatch(/#4 — :x: declined by <@U0ME> .* \(requested by <@U0REQUESTER>\)/);
  });

  it('stays within the surface’s block limit, says where the page stands and offers the next page after the last request shown', () => {
    const waiting = Array.from({ length: 40 }, (_, i) => item(i + 1));
    const many = Array.from({ length: 10 }, (_, i) => item(1000 + i, { status: 'approved', decidedBy: 'U0A' }));
    for (const fit of [HOME_FIT, MESSAGE_FIT]) {
      const page = waiting.slice(0, fit.waitingPage);
      const blocks = inboxBlocks(data({ waiting: page, waitingTotal: 300, requested: many, requestedTotal: 45, decided: many, decidedTotal: 12 }), fit);
      expect(blocks.length).toBeLessThanOrEqual(fit.maxBlocks);
      const decisions = buttonsOf(blocks).filter((b) => b.block_id.startsWith('approval:'));
      const shown = decisions.length;
      expect(shown).toBeGreaterThan(0);
      const text = allText(blocks);
      expect(text).toContain('*Waiting for you* (300)');
      expect(text).toContain(`Showing 1–${shown} of 300, oldest first; ${300 - shown} more after these.`);
      expect(text).toContain(`…and ${45 - fit.maxListed} more.`);
      // Each "and N more" opens its list in full.
      const more = (blocks as Array<{ block_id?: string; accessory?: { action_id: string; value: string; text: { text: string } } }>).filter((b) => b.block_id?.startsWith('inbox:more:'));
      expect(more.map((b) => [b.accessory!.action_id, b.accessory!.value, b.accessory!.text.text])).toEqual([
        [ACTION_IDS.inboxList, 'requested:0', 'Show all 45'],
        [ACTION_IDS.inboxList, 'decided:0', 'Show all 12'],
      ]);
      const pager = buttonsOf(blocks).find((b) => b.block_id === 'inbox:page')!;
      expect(pager.elements.map((e) => [e.action_id, e.value])).toEqual([[ACTION_IDS.inboxNextPage, `after:${decisions.at(-1)!.block_id.slice('approval:'.length)}`]]);
      expect(blockLimitErrors(blocks, fit === HOME_FIT ? '/view/blocks' : '/blocks')).toEqual([]);
    }
    expect(JSON.stringify(inboxBlocks(data({ waiting: waiting.slice(0, MESSAGE_FIT.waitingPage), waitingTotal: 300, requested: many, requestedTotal: 45, decided: many, decidedTotal: 12 }), MESSAGE_FIT)).length).toBeLessThan(LIMITS.messageBlocksJson);
    expect(homeView(data({ waiting, waitingTotal: 300 })).blocks.length).toBeLessThanOrEqual(LIMITS.modalBlocks);
  });

  it('a later page offers the first page back; the last one no next; one page holding everything no buttons at all', () => {
    const later = inboxBlocks(data({ waiting: [item(51), item(52)], waitingTotal: 37, waitingBefore: 35 }), HOME_FIT);
    expect(allText(later)).toContain('Showing 36–37 of 37, oldest first.');
    expect(buttonsOf(later).find((b) => b.block_id === 'inbox:page')!.elements.map((e) => e.value)).toEqual(['first']);
    const middle = inboxBlocks(data({ waiting: [item(51)], waitingTotal: 100, waitingBefore: 35 }), MESSAGE_FIT);
    expect(buttonsOf(middle).find((b) => b.block_id === 'inbox:page')!.elements.map((e) => [e.action_id, e.value])).toEqual([
      [ACTION_IDS.inboxFirstPage, 'first'],
      [ACTION_IDS.inboxNextPage, 'after:51'],
    ]);
    expect(blockLimitErrors(middle)).toEqual([]);
    const past = inboxBlocks(data({ waiting: [], waitingTotal: 3, waitingBefore: 3 }), HOME_FIT);
    expect(buttonsOf(past).find((b) => b.block_id === 'inbox:page')!.elements.map((e) => e.value)).toEqual(['first']);
    const whole = inboxBlocks(data({ waiting: [item(1), item(2)], waitingTotal: 2 }), HOME_FIT);
    expect(buttonsOf(whole).find((b) => b.block_id === 'inbox:page')).toBeUndefined();
    expect(allText(whole)).not.toContain('Showing');
  });

  it('page buttons name a page, nothing else', () => {
    expect(parseInboxPage('first')).toEqual({});
    expect(parseInboxPage('after:42')).toEqual({ after: 42 });
    for (const value of [undefined, '', 'after:', 'after:0', 'after:-1', 'after:1.5', 'after:007', 'after:2147483648', 'after:1 ', '42']) expect(parseInboxPage(value), String(value)).toBeUndefined();
  });

  it('model and user text is escaped everywhere, the notice included', () => {
    const hostile = { ...item(9, { toolName: `refund ${INJECTION}`, args: { note: INJECTION }, requester: '<!channel>' }), call: { title: `Refund ${INJECTION}`, fields: [{ label: `Note ${INJECTION}`, value: '&lt;!channel&gt;' }], own: false } };
    const blocks = inboxBlocks(data({ waiting: [hostile], waitingTotal: 1, requested: [hostile], requestedTotal: 1 }), HOME_FIT);
    expectNoInjection(blocks);
    expectNoInjection(requestBlocks(hostile, true));
  });

  it('the notice is the clicker’s answer as told elsewhere (escaped mrkdwn, mentions kept)', () => {
    const [, notice] = inboxBlocks(data({ notice: 'This request was already approved by <@U0ALICE>. Nothing was changed.' }), HOME_FIT);
    expect(allText([notice])).toBe(':warning: This request was already approved by <@U0ALICE>. Nothing was changed.');
  });

  it('one request in full: buttons only for someone who may decide it while it is pending', () => {
    expect(buttonsOf(requestBlocks(item(5), true))).toHaveLength(1);
    expect(buttonsOf(requestBlocks(item(5), false))).toHaveLength(0);
    expect(buttonsOf(requestBlocks(item(5, { status: 'approved' }), true))).toHaveLength(0);
    const text = allText(requestBlocks(item(5), false));
    expect(text).not.toContain('"orderId"');
    expect(text).toMatch(/^\*Refund \$25\.00 on order A-5\* #5 — :hourglass_flowing_sand: waiting\n`issue_refund` · requested by <@U0REQUESTER> · <!date\^\d+\^[^>]+> · expires <!date[^\n]+\n\*Amount\* \$25\.00 · \*Order\* A-5$/);
    expect(allText(requestBlocks(item(5, { status: 'approved', decidedBy: 'U0A' }), false))).not.toContain('expires');
  });
});

describe('a list of the inbox opened in full (inboxListModal)', () => {
  it('shows a page of requests as the inbox does, with Newer and Older naming the pages around it', () => {
    const items = Array.from({ length: LIST_PAGE }, (_, i) => item(100 - i, { status: 'approved', decidedBy: 'U0A' }));
    const view = inboxListModal({ list: 'requested', offset: 25, total: 60, items });
    expect(viewLimitErrors(view, 'modal')).toEqual([]);
    expect(view.title.text).toBe('Requested by you');
    expect(view.private_metadata).toBe('requested:25');
    const text = allText(view.blocks);
    expect(text).toContain('26–50 of 60, newest first.');
    expect(text).toContain('*Refund $25.00 on order A-100* #100 — :white_check_mark: approved by <@U0A>');
    const pager = buttonsOf(view.blocks).find((b) => b.block_id === 'inbox:list:requested')!;
    expect(pager.elements.map((e) => [e.action_id, e.value])).toEqual([
      [ACTION_IDS.inboxListNewer, 'requested:0'],
      [ACTION_IDS.inboxList, 'requested:50'],
    ]);
    const last = inboxListModal({ list: 'decided', offset: 50, total: 60, items: items.slice(0, 10) });
    expect(buttonsOf(last.blocks).find((b) => b.block_id === 'inbox:list:decided')!.elements.map((e) => e.value)).toEqual(['decided:25']);
    expect(allText(inboxListModal({ list: 'decided', offset: 0, total: 0, items: [] }).blocks)).toBe('You have not decided any requests yet.');
  });

  it('remembered approvals keep their Revoke buttons', () => {
    const remembered = { id: 3, toolName: 'delete_record', call: { title: 'Delete record r1', fields: [], own: true }, requester: 'U0R', createdBy: 'U0A', expiresAt: CREATED };
    const view = inboxListModal({ list: 'remembered', offset: 0, total: 1, items: [remembered] });
    expect(view.blocks.find((b) => b.block_id === 'remembered:3')).toMatchObject({ accessory: { action_id: ACTION_IDS.revokeRemembered, value: '3' } });
  });

  it('list buttons name a list and a position, nothing else', () => {
    expect(parseInboxListValue(inboxListValue('decided', 25))).toEqual({ list: 'decided', offset: 25 });
    for (const value of [undefined, '', 'requested', 'requested:', 'requested:-1', 'requested:01', 'requested:1.5', 'waiting:0', 'requested:10000000', 'remembered:0 ']) expect(parseInboxListValue(value), String(value)).toBeUndefined();
  });
});

describe('threadLink', () => {
  it('links to the card in its thread, or to the card alone at a DM’s top level', () => {
    expect(threadLink('https://acme.slack.com/', { channel: 'C0CHAN', ts: '1726133700.000100', thread_ts: '1726133600.000200' })).toBe(
      'https://acme.slack.com/archives/C0CHAN/p1726133700000100?thread_ts=1726133600.000200&cid=C0CHAN',
    );
    expect(threadLink('https://acme.slack.com/', { channel: 'D0DM', ts: '1726133700.000100', thread_ts: null })).toBe('https://acme.slack.com/archives/D0DM/p1726133700000100');
  });

  it('gives no link for anything that does not look like Slack’s', () => {
    expect(threadLink(undefined, { channel: 'C0CHAN', ts: '1.2', thread_ts: null })).toBeUndefined();
    expect(threadLink('https://acme.slack.com/|x', { channel: 'C0CHAN', ts: '1.2', thread_ts: null })).toBeUndefined();
    expect(threadLink('https://acme.slack.com/', { channel: 'C0CHAN>|', ts: '1.2', thread_ts: null })).toBeUndefined();
    expect(threadLink('https://acme.slack.com/', { channel: 'C0CHAN', ts: 'x', thread_ts: null })).toBeUndefined();
  });
});

describe('parseApprovalsCommand', () => {
  it('reads the list, one id, help, and refuses anything else', () => {
    expect(parseApprovalsCommand('')).toEqual({ kind: 'list' });
    expect(parseApprovalsCommand('   ')).toEqual({ kind: 'list' });
    expect(parseApprovalsCommand(' 42 ')).toEqual({ kind: 'one', actionId: 42 });
    expect(parseApprovalsCommand('#42')).toEqual({ kind: 'one', actionId: 42 });
    expect(parseApprovalsCommand('help')).toEqual({ kind: 'help' });
    for (const bad of ['0', '-1', '4.2', '99999999999', 'abc', '42 43', '<!channel>']) expect(parseApprovalsCommand(bad).kind).toBe('bad');
  });
});
