import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { approvalCard } from '../../../../src/slack/card/approval-card.js';
import type { ApprovalCardData, CardBound } from '../../../../src/slack/card/card-types.js';
import { blockLimitErrors } from '../../../../src/simulator/index.js';
import { approvalCardData, CARD_EXPIRES } from '../../../helpers/slack/approval-card-data.js';
import { allText, expectNoInjection, expectWellFormed, INJECTION } from '../../../helpers/slack/block-text.js';
import { whoDecides } from '../../../../src/slack/kit/mention.js';
import { batchCard, type BatchMember } from '../../../../src/slack/batch/batch-card.js';
import { LIMITS } from '../../../../src/slack/kit/limits.js';
import { ACTION_IDS } from '../../../../src/slack/kit/action-ids.js';
import { blockedReasonText } from '../../../../src/slack/card/cards.js';
import { noMatchingGrant } from '../../../../src/db/grants.js';

const DECIDED = new Date('2030-01-01T12:00:00Z');

const IDS = ['U0REQUESTER', 'U0APPROVER1', 'U0APPROVER2', 'S0FINANCE01'];

function actions(blocks: KnownBlock[]) {
  return blocks.filter((b) => b.type === 'actions');
}

function expectValid(blocks: KnownBlock[], ids: readonly string[] = IDS): void {
  expect(blockLimitErrors(blocks)).toEqual([]);
  expectNoInjection(blocks, ids);
  expectWellFormed(blocks);
}

describe('approvalCard: pending', () => {
  const blocks = approvalCard(approvalCardData());
  const text = allText(blocks);

  it('is valid Block Kit', () => {
    expectValid(blocks);
  });

  it('has a plain_text header with the call in words (the tool name when no title is given), and names the tool', () => {
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Issue refund' } });
    expect(text).toContain('*Tool:* `issue_refund`');
    const titled = approvalCard(approvalCardData({ title: 'Refund €25.00 on order A-1001' }));
    expect(titled[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Refund €25.00 on order A-1001' } });
  });

  it('shows the delegation path, requester, approvers, quorum and expiry', () => {
    expect(text).toContain('*Path:* ops → billing → issue_refund');
    expect(text).toContain('*Requested by:* <@U0REQUESTER>');
    expect(text).toContain('*Approvers:* <@U0APPROVER1> or <!subteam^S0FINANCE01>');
    expect(text).toContain('*Quorum:* 1 approval');
    expect(text).toContain(`*Expires:* <!date^${CARD_EXPIRES.getTime() / 1000}^{date_short_pretty} {time}|2030-01-02T03:04:05.000Z>`);
  });

  it('shows the arguments as label/value fields, not raw JSON', () => {
    const fields = blocks.find((b) => b.type === 'section' && 'fields' in b && b.fields !== undefined) as { fields: Array<{ text: string }> } | undefined;
    expect(fields?.fields.map((f) => f.text)).toEqual(['*Order ID*\nA-1001', '*Amount*\n25', '*Currency*\nEUR']);
    expect(text).not.toContain('*Arguments*');
    expect(text).not.toContain('"orderId"');
  });

  it('shows the fields the caller described, in that order', () => {
    const described = approvalCard(approvalCardData({ fields: [{ label: 'Amount', value: '$1,500.50' }, { label: 'Order', value: '1042' }] }));
    expectValid(described);
    expect(allText(described)).toContain('*Amount*\n$1,500.50');
    expect(allText(described)).toContain('*Order*\n1042');
  });

  it('shows a 12-character fingerprint, the policy version and the request number', () => {
    expect(text).toContain('Fingerprint `0123456789ab`');
    expect(text).not.toContain('0123456789abc');
    expect(text).toContain('Policy `pv_7f3a`');
    expect(text).toContain('Request #42');
  });

  it('has Approve, Decline and Show arguments buttons bound to the request (and fingerprint)', () => {
    const [block] = actions(blocks);
    expect(block).toEqual({
      type: 'actions',
      block_id: 'approval:42',
      elements: [
        {
          type: 'button',
          action_id: 'approval.approve',
          text: { type: 'plain_text', text: 'Approve' },
          style: 'primary',
          value: '{"a":42,"f":"0123456789abcdef"}',
        },
        {
          type: 'button',
          action_id: 'approval.decline',
          text: { type: 'plain_text', text: 'Decline' },
          style: 'danger',
          value: '{"a":42,"f":"0123456789abcdef"}',
        },
        {
          type: 'button',
          action_id: 'approval.show_arguments',
          text: { type: 'plain_text', text: 'Show arguments' },
          value: '{"a":42}',
        },
      ],
    });
    // Low risk: no confirm dialog, and nothing says high-risk.
    expect(JSON.stringify(block)).not.toContain('confirm');
    expect(text).not.toMatch(/high-risk/i);
  });

  it('hides the path when there was no delegation', () => {
    expect(allText(approvalCard(approvalCardData({ path: ['ops'] })))).not.toContain('Path');
    expect(allText(approvalCard(approvalCardData({ path: [] })))).not.toContain('Path');
  });

  it('says anyone may approve when no approvers are configured', () => {
    expect(allText(approvalCard(approvalCardData({ approvers: [] })))).toContain('*Approvers:* anyone');
  });

  it('omits the requester and policy version when unknown', () => {
    const t = allText(approvalCard(approvalCardData({ requester: undefined, policyVersion: undefined })));
    expect(t).not.toContain('Requested by');
    expect(t).not.toContain('Policy');
  });

  it('shows quorum progress and keeps the buttons until the quorum is met', () => {
    const partial = approvalCard(approvalCardData({ quorum: 2, approvals: ['U0APPROVER1'] }));
    expect(allText(partial)).toContain('*Quorum:* 2 approvals');
    expect(allText(partial)).toContain('1 of 2 approvals: <@U0APPROVER1>');
    expect(actions(partial)).toHaveLength(1);
    expect(allText(approvalCard(approvalCardData({ quorum: 2, approvals: [] })))).not.toContain('of 2 approvals');
  });
});

describe('approvalCard: decided states have no buttons', () => {
  const cases: Array<[string, ApprovalCardData['state'], string]> = [
    ['approved by one', { kind: 'approved', by: ['U0APPROVER1'], at: DECIDED }, 'Approved by <@U0APPROVER1>'],
    [
      'approved by two',
      { kind: 'approved', by: ['U0APPROVER1', 'U0APPROVER2'], at: DECIDED },
      'Approved by <@U0APPROVER1> and <@U0APPROVER2>',
    ],
    ['declined without a reason', { kind: 'declined', by: 'U0APPROVER1', at: DECIDED }, 'Declined by <@U0APPROVER1>'],
    [
      'declined with a reason',
      { kind: 'declined', by: 'U0APPROVER1', reason: 'Over the <limit> & not refundable', at: DECIDED },
      'Declined by <@U0APPROVER1>: Over the &lt;limit&gt; &amp; not refundable',
    ],
    ['expired', { kind: 'expired' }, 'Expired'],
    ['blocked', { kind: 'blocked' }, 'Blocked: arguments changed'],
    ['superseded', { kind: 'superseded' }, 'Superseded'],
    ['cancelled', { kind: 'cancelled' }, 'Cancelled'],
    ['cancelled by someone', { kind: 'cancelled', by: 'U0REQUESTER' }, 'Cancelled by <@U0REQUESTER>'],
  ];

  for (const [name, state, line] of cases) {
    it(name, () => {
      const blocks = approvalCard(approvalCardData({ state }));
      expectValid(blocks);
      expect(actions(blocks)).toEqual([]);
      expect(allText(blocks)).toContain(line);
      expect(allText(blocks)).not.toContain('*Expires:*');
    });
  }

  it('says when a decision was made', () => {
    const t = allText(approvalCard(approvalCardData({ state: { kind: 'approved', by: ['U0APPROVER1'], at: DECIDED } })));
    expect(t).toContain(`Decided <!date^${DECIDED.getTime() / 1000}^`);
  });

  it('lists three approvers with commas', () => {
    const t = allText(
      approvalCard(approvalCardData({ state: { kind: 'approved', by: ['U0APPROVER1', 'U0APPROVER2', 'U0REQUESTER'], at: DECIDED } })),
    );
    expect(t).toContain('Approved by <@U0APPROVER1>, <@U0APPROVER2> and <@U0REQUESTER>');
  });

  it('treats a blank reason as no reason', () => {
    const t = allText(approvalCard(approvalCardData({ state: { kind: 'declined', by: 'U0APPROVER1', reason: '  ', at: DECIDED } })));
    expect(t).toContain('Declined by <@U0APPROVER1>');
    expect(t).not.toContain('Declined by <@U0APPROVER1>:');
  });
});

describe('approvalCard: ids are validated before they become mentions', () => {
  it('escapes anything that is not a user or group id', () => {
    const blocks = approvalCard(
      approvalCardData({
        requester: '<!channel>',
        approvers: ['<!here>', 'u0lowercase', 'C0CHANNEL01', 'U0APPROVER1'],
        state: { kind: 'declined', by: '<@U123>', reason: 'no', at: DECIDED },
      }),
    );
    expectValid(blocks);
    const t = allText(blocks);
    expect(t).toContain('*Requested by:* &lt;!channel&gt;');
    expect(t).toContain('&lt;!here&gt;, u0lowercase, C0CHANNEL01 or <@U0APPROVER1>');
    expect(t).toContain('Declined by &lt;@U123&gt;: no');
  });

  it('does not let a user-id position mention a group', () => {
    const t = allText(approvalCard(approvalCardData({ requester: 'S0FINANCE01' })));
    expect(t).toContain('*Requested by:* S0FINANCE01');
  });
});

describe('approvalCard: large and odd arguments stay within limits', () => {
  it('summarises a large argument as compact JSON in inline code, cut visibly', () => {
    const args = { items: Array.from({ length: 600 }, (_, i) => ({ sku: `SKU-${i}`, qty: i })) };
    const blocks = approvalCard(approvalCardData({ args }));
    expectValid(blocks);
    const t = allText(blocks);
    expect(t).toContain('*Items*\n`[{"sku":"SKU-0","qty":0}');
    expect(t).toMatch(/…`/);
  });

  it('stays within limits when escaping multiplies the size', () => {
    const args = { s: '&<>'.repeat(20_000) };
    const blocks = approvalCard(approvalCardData({ args }));
    expectValid(blocks);
    expect(allText(blocks)).toContain('&amp;&lt;&gt;');
  });

  it('renders arguments JSON cannot', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    for (const args of [undefined, null, 10n, circular, 'plain string', [1, 2, 3]]) {
      const blocks = approvalCard(approvalCardData({ args }));
      expectValid(blocks);
    }
    expect(allText(approvalCard(approvalCardData({ args: { n: 10n } })))).toContain('10');
  });

  it('keeps backticks inside an argument from ending its code span', () => {
    const t = allText(approvalCard(approvalCardData({ args: { md: { x: '```\n<!channel>\n```' } } })));
    expect(t).not.toContain('<!channel>');
    const field = t.slice(t.indexOf('*Md*'));
    expect(field.slice(0, field.indexOf('\n', 6)).split('`').length - 1).toBe(2);
  });

  it('falls back to a text list past 10 fields', () => {
    const args = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`field_${i}`, `value ${i}`]));
    const blocks = approvalCard(approvalCardData({ args }));
    expectValid(blocks);
    expect(blocks.some((b) => b.type === 'section' && 'fields' in b && b.fields !== undefined)).toBe(false);
    expect(allText(blocks)).toContain('*Field 13:* value 13');
  });

  it('falls back to a text list when one value is longer than a field may be', () => {
    const blocks = approvalCard(approvalCardData({ fields: [{ label: 'Note', value: 'n'.repeat(2500) }, { label: 'Order', value: '1' }] }));
    expectValid(blocks);
    expect(allText(blocks)).toContain('*Order:* 1');
  });
});

describe('approvalCard: high risk and reasons', () => {
  it('says a high-risk call is high-risk and confirms Approve in a danger dialog naming the action', () => {
    const blocks = approvalCard(approvalCardData({ title: 'Delete record rec-9', risk: 'high' }));
    expectValid(blocks);
    expect(allText(blocks)).toContain('*High-risk action.*');
    const approve = (actions(blocks)[0] as unknown as { elements: Array<Record<string, unknown>> }).elements[0]!;
    expect(approve.action_id).toBe('approval.approve');
    expect(approve.confirm).toEqual({
      title: { type: 'plain_text', text: 'Approve a high-risk action?' },
      text: { type: 'plain_text', text: expect.stringContaining('Delete record rec-9') },
      confirm: { type: 'plain_text', text: 'Approve' },
      deny: { type: 'plain_text', text: 'Cancel' },
      style: 'danger',
    });
  });

  it('keeps the confirm dialog within its limits for a huge title', () => {
    const blocks = approvalCard(approvalCardData({ title: `Delete ${'x'.repeat(5000)}`, risk: 'high' }));
    expectValid(blocks);
  });

  it('gives Approve its own action id and says a reason is asked for when the policy requires one', () => {
    const blocks = approvalCard(approvalCardData({ requireReason: true }));
    expectValid(blocks);
    const approve = (actions(blocks)[0] as unknown as { elements: Array<Record<string, unknown>> }).elements[0]!;
    expect(approve.action_id).toBe('approval.approve_with_reason');
    expect(allText(blocks)).toContain('Approving asks for a reason');
  });

  it('shows each approver\'s reason, escaped', () => {
    const blocks = approvalCard(
      approvalCardData({ state: { kind: 'approved', by: ['U0APPROVER1', 'U0APPROVER2'], at: DECIDED, reasons: { U0APPROVER1: 'Customer <!channel> verified & refunded' } } }),
    );
    expectValid(blocks);
    const t = allText(blocks);
    expect(t).toContain('Approved by <@U0APPROVER1>: Customer &lt;!channel&gt; verified &amp; refunded');
    expect(t).toContain('Approved by <@U0APPROVER2>');
  });
});

describe('approvalCard: extreme inputs', () => {
  it('fits everything huge at once, in every state', () => {
    const huge = approvalCardData({
      toolName: `${INJECTION} ${'t'.repeat(500)}`,
      args: { payload: `${INJECTION}\n`.repeat(3000), nested: { deep: Array.from({ length: 500 }, () => INJECTION) } },
      path: Array.from({ length: 100 }, (_, i) => `agent_${i}_${INJECTION}_${'p'.repeat(100)}`),
      requester: 'U0REQUESTER',
      approvers: [...Array.from({ length: 500 }, (_, i) => `U${String(i).padStart(10, '0')}`), INJECTION],
      quorum: 300,
      approvals: Array.from({ length: 299 }, (_, i) => `W${String(i).padStart(10, '0')}`),
      fingerprint: `${INJECTION}${'f'.repeat(5000)}`,
      policyVersion: `${INJECTION}${'v'.repeat(5000)}`,
    });
    const ids = [...IDS, ...huge.approvers, ...huge.approvals];
    const states: ApprovalCardData['state'][] = [
      { kind: 'pending' },
      { kind: 'approved', by: huge.approvals, at: DECIDED },
      { kind: 'declined', by: 'U0APPROVER1', reason: `${INJECTION} ${'r'.repeat(10_000)}`, at: DECIDED },
      { kind: 'expired' },
      { kind: 'blocked' },
      { kind: 'cancelled', by: INJECTION },
    ];
    for (const state of states) {
      const blocks = approvalCard({ ...huge, state });
      expectValid(blocks, ids);
      expect((blocks[0] as { text: { text: string } }).text.text.length).toBeLessThanOrEqual(150);
    }
    const pending = approvalCard(huge);
    expect(allText(pending)).toMatch(/ or \d+ more/);
    expect(allText(pending)).toMatch(/299 of 300 approvals: .* and \d+ more/);
  });

  it('never cuts an emoji in half', () => {
    const blocks = approvalCard(approvalCardData({ toolName: '😀'.repeat(200), args: { e: '😀'.repeat(5000) } }));
    expectValid(blocks);
  });

  it('survives an invalid expiry date', () => {
    const blocks = approvalCard(approvalCardData({ expiresAt: new Date('nope') }));
    expectValid(blocks);
    expect(allText(blocks)).toContain('*Expires:* an unknown time');
  });
});

describe('approvalCard: header', () => {
  it('keeps a multi-line tool name on one header line', () => {
    const blocks = approvalCard(approvalCardData({ toolName: 'issue\nrefund' }));
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Issue refund' } });
    const titled = approvalCard(approvalCardData({ title: 'Refund\n$5 on order 1' }));
    expect(titled[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Refund $5 on order 1' } });
  });
});

describe('approvalCard: a quorum that can never be met', () => {
  const warning = (blocks: KnownBlock[]) => blocks.find((b) => b.type === 'section' && JSON.stringify(b).includes(':warning:'));

  it('says so in its own section right under the facts, while the request is pending, buttons still there', () => {
    const blocks = approvalCard(approvalCardData({ quorum: 3, unreachableQuorum: { eligible: 2 } }));
    expectValid(blocks);
    expect(warning(blocks)).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text:
          ':warning: *This request can never be approved:* it needs 3 approvals but only 2 people may approve it under the approval policy. ' +
          'It will expire unless the policy is changed; it can still be declined.',
        verbatim: true,
      },
    });
    const facts = blocks.findIndex((b) => JSON.stringify(b).includes('*Quorum:*'));
    expect(blocks.indexOf(warning(blocks)!)).toBe(facts + 1);
    expect(actions(blocks)).toHaveLength(1);
  });

  it('words one person and nobody', () => {
    expect(allText(approvalCard(approvalCardData({ quorum: 2, unreachableQuorum: { eligible: 1 } })))).toContain('needs 2 approvals but only 1 person may approve it');
    expect(allText(approvalCard(approvalCardData({ quorum: 1, unreachableQuorum: { eligible: 0 } })))).toContain('needs 1 approval but nobody may approve it');
  });

  it('is not shown without the fact, nor once the request is no longer pending', () => {
    expect(warning(approvalCard(approvalCardData({ quorum: 3 })))).toBeUndefined();
    expect(warning(approvalCard(approvalCardData({ quorum: 3, unreachableQuorum: { eligible: 2 }, state: { kind: 'expired' } })))).toBeUndefined();
  });
});

const DAY = 86_400_000;

describe('approval card: over a cumulative limit', () => {
  it('says why it asks more: total, whose, window, limit and what it takes', () => {
    const blocks = approvalCard(
      approvalCardData({ quorum: 2, overLimit: [{ sum: 'amountCents', requester: 'U0BOB', total: 135000, above: 100000, overMs: DAY }] }),
    );
    expect(allText(blocks)).toContain('*Over the limit:* $1,350.00 of `issue_refund` by <@U0BOB> in the last 24h exceeds $1,000.00 → 2 approvals');
    expect(blockLimitErrors(blocks)).toEqual([]);
  });

  it('a count for everyone reads as calls; a plain sum names its argument', () => {
    const count = allText(approvalCard(approvalCardData({ toolName: 'delete_record', overLimit: [{ total: 21, above: 20, overMs: 3_600_000 }] })));
    expect(count).toContain('*Over the limit:* 21 calls of `delete_record` by everyone in the last 1h exceeds 20 → approval required');
    const sum = allText(approvalCard(approvalCardData({ overLimit: [{ sum: 'rows', total: 1500, above: 1000, overMs: 90 * 60_000 }] })));
    expect(sum).toContain('1,500 of `issue_refund` `rows` by everyone in the last 90m exceeds 1,000');
  });

  it('a card without limit hits has no such line; stored strings cannot break out of the mrkdwn', () => {
    expect(allText(approvalCard(approvalCardData()))).not.toContain('Over the limit');
    const blocks = approvalCard(
      approvalCardData({ toolName: INJECTION, overLimit: [{ sum: INJECTION, requester: INJECTION, total: 2, above: 1, overMs: DAY }] }),
    );
    const line = allText(blocks).split('\n').find((l) => l.includes('Over the limit'))!;
    expect(line).not.toMatch(/<!channel>|<@U123>|<https:/);
    expect(blockLimitErrors(blocks)).toEqual([]);
  });
});

describe('approval card: who is notified', () => {
  it('mentions users and user groups by default', () => {
    const t = allText(approvalCard(approvalCardData()));
    expect(t).toContain('*Approvers:* <@U0APPROVER1> or <!subteam^S0FINANCE01>');
  });

  it('with notify: none shows the approvers as ids that ping nobody', () => {
    const t = allText(approvalCard(approvalCardData({ notify: 'none' })));
    expect(t).toContain('*Approvers:* `U0APPROVER1` or `S0FINANCE01`');
    expect(t).not.toContain('<!subteam^');
    expect(t).not.toContain('<@U0APPROVER1>');
  });

  it('never turns an invalid id into a broadcast, whatever the mode', () => {
    expect(whoDecides(['<!channel>', 'U0OK'], 'mentions')).toBe('&lt;!channel&gt; or <@U0OK>');
    expect(whoDecides(['<!channel>'], 'none')).toBe('&lt;!channel&gt;');
  });

  it('says on a pending card that the requester can reply cancel, and not once decided', () => {
    expect(allText(approvalCard(approvalCardData()))).toContain('<@U0REQUESTER> can reply `cancel` in the thread to withdraw it');
    const decided = allText(approvalCard(approvalCardData({ state: { kind: 'approved', by: ['U0APPROVER1'], at: new Date() } })));
    expect(decided).not.toContain('cancel');
  });

  it('says where copies went while pending', () => {
    expect(allText(approvalCard(approvalCardData({ routedTo: '<#C0APPROVALS>' })))).toContain('*Sent to:* <#C0APPROVALS>');
  });
});

const UNTIL = new Date('2026-07-06T06:00:00Z');

function valid(blocks: unknown[]): void {
  expect(blockLimitErrors(blocks as never)).toEqual([]);
  expectNoInjection(blocks, IDS);
  expectWellFormed(blocks);
  expect(JSON.stringify(blocks).length).toBeLessThanOrEqual(LIMITS.messageBlocksJson);
}

describe('approval card: what the approval is bound to', () => {
  it("shows the agent's stated reason as its own words, escaped, quoted line by line", () => {
    const blocks = approvalCard(approvalCardData({ bound: { statedReason: `Customer asked twice.\nSee ${INJECTION} *now*` } }));
    valid(blocks);
    const text = allText(blocks);
    expect(text).toContain(":speech_balloon: *The agent's stated reason* (its own words, not checked):\n>Customer asked twice.\n>See &lt;!channel&gt;");
  });

  it('shows the preview: fields as they are now, the diff as now → after', () => {
    const bound: CardBound = {
      preview: { fields: [{ label: 'Record', value: 'abc, version 1' }], diff: [{ label: 'Status', before: 'active', after: 'archived' }, { label: 'Owner', before: 'ann' }] },
    };
    const text = allText(approvalCard(approvalCardData({ bound })));
    expect(text).toContain("*Preview* (the tool's, now → after the call):\n*Record:* `abc, version 1`\n*Status:* `active` → `archived`\n*Owner:* `ann` → _(removed)_");
  });

  it('says the preview failed, with its message escaped', () => {
    const text = allText(approvalCard(approvalCardData({ bound: { preview: { failed: `CRM timed out <!here>` } } })));
    expect(text).toContain(':warning: *The preview failed:* CRM timed out &lt;!here&gt;. Decide without it, or decline.');
  });

  it.each([
    ['state-changed', 'the record changed since it was approved'],
    ['preview-failed', 'the preview failed right before it ran'],
    ['not-previewed', 'it was approved without the preview it has now'],
    ['freeze', 'a change freeze began after it was approved'],
    ['policy-changed', 'the approval policy changed after it was approved'],
  ] as const)('says why it was asked again (%s)', (why, words) => {
    const text = allText(approvalCard(approvalCardData({ bound: { askedAgain: { fromActionId: 41, why } } })));
    expect(text).toContain(`:arrows_counterclockwise: *Asked again:* ${words}`);
    expect(text).toContain('Request #41 was approved, but its call did not run.');
  });

  it('says what the MCP server changed, before → after, escaped', () => {
    const changes = [{ part: 'description', before: 'Create an issue.', after: `Create an issue. Also mail ${INJECTION}` }];
    const blocks = approvalCard(approvalCardData({ bound: { askedAgain: { fromActionId: 41, why: 'tool-changed', changes } } }));
    valid(blocks);
    expect(allText(blocks)).toContain('*Asked again:* the MCP server changed this tool since it was approved: description “Create an issue.” → “Create an issue. Also mail &lt;!channel&gt;');
    const pending = allText(approvalCard(approvalCardData({ bound: { toolChanged: changes } })));
    expect(pending).toContain('*The MCP server changed this tool since it was asked for:* description “Create an issue.”');
    expect(pending).toContain('Approving it asks again under the new definition.');
  });

  it('names the change freeze holding the request and until when, while it waits', () => {
    const bound: CardBound = { freezes: [{ name: 'weekend', until: UNTIL }, { name: 'open-ended' }] };
    const text = allText(approvalCard(approvalCardData({ bound })));
    expect(text).toContain(`:snowflake: *Change freeze in force:* \`weekend\` until <!date^${UNTIL.getTime() / 1000}^{date_short_pretty} {time}|2026-07-06T06:00:00.000Z>, \`open-ended\` with no end set.`);
    const decided = allText(approvalCard(approvalCardData({ bound, state: { kind: 'approved', by: ['U0APPROVER1'], at: UNTIL } })));
    expect(decided).not.toContain('Change freeze');
  });

  it('says when the policy now denies the call it asks for, escaped, while it waits', () => {
    const text = allText(approvalCard(approvalCardData({ bound: { deniedNow: `Frozen <!here>` } })));
    expect(text).toContain(':no_entry: *The approval policy now denies this call:* Frozen &lt;!here&gt;. Approving it will not run it.');
    expect(allText(approvalCard(approvalCardData({ bound: { deniedNow: 'x' }, state: { kind: 'expired' } })))).not.toContain('now denies');
  });

  it('says who asked when no person did: the agent and its caller label, and keeps the buttons', () => {
    const blocks = approvalCard(approvalCardData({ requester: undefined, unattended: { agent: 'ops', caller: `nightly <!channel>` } }));
    valid(blocks);
    const text = allText(blocks);
    expect(text).toContain('*Requested by:* no person — by agent `ops` (nightly &lt;!channel&gt;)');
    expect(text).not.toContain('can reply `cancel`');
    const buttons = blocks.filter((b) => b.type === 'actions').flatMap((b) => (b as { elements: Array<{ action_id: string }> }).elements.map((e) => e.action_id));
    expect(buttons).toEqual(expect.arrayContaining([ACTION_IDS.approve, ACTION_IDS.decline]));
  });

  it('stays within Block Kit limits at the largest a binding can be', () => {
    const big = 'x'.repeat(3000);
    const twenty = Array.from({ length: 20 }, (_, i) => ({ label: `${'L'.repeat(190)}${i}`, value: big }));
    const bound: CardBound = {
      statedReason: '&<>'.repeat(333),
      preview: { fields: twenty, diff: twenty.map((f) => ({ label: f.label, before: big, after: big })) },
      askedAgain: { fromActionId: 1, why: 'tool-changed', changes: Array.from({ length: 6 }, () => ({ part: 'inputSchema', before: big.slice(0, 1000), after: big.slice(0, 1000) })) },
      toolChanged: [{ part: 'description', before: big, after: big }],
      freezes: Array.from({ length: 5 }, (_, i) => ({ name: `${'f'.repeat(200)}${i}`, until: UNTIL })),
    };
    const blocks = approvalCard(approvalCardData({ bound, args: { note: big } }));
    valid(blocks);
    expect(allText(blocks)).toContain('*Preview*');
  });
});

describe('batch card: what each call is bound to', () => {
  const member = (over: Partial<BatchMember>): BatchMember => ({ actionId: 1, toolName: 'set_status', args: { id: 'a' }, fingerprint: 'f'.repeat(64), quorum: 1, approvals: [], state: { kind: 'pending' }, ...over });

  it('tells each call in a line: asked again, freeze, the agent’s words, the diff; and who asked when no person did', () => {
    const blocks = batchCard({
      total: 2,
      part: 1,
      parts: 1,
      offset: 0,
      waiting: 2,
      unattended: { agent: 'ops', caller: 'nightly-cleanup' },
      approvers: ['U0APPROVER1'],
      members: [
        member({ bound: { statedReason: `Duplicate ${INJECTION}`, preview: { diff: [{ label: 'Status', before: 'active', after: 'archived' }] }, askedAgain: { fromActionId: 9, why: 'state-changed' } } }),
        member({ actionId: 2, bound: { freezes: [{ name: 'weekend', until: UNTIL }], preview: { failed: 'down' } } }),
      ],
    });
    valid(blocks);
    const text = allText(blocks);
    expect(text).toContain('*Requested by:* no person — by agent `ops` (nightly-cleanup)');
    expect(text).toContain(':arrows_counterclockwise: asked again: the record changed since it was approved');
    expect(text).toContain(':speech_balloon: the agent says: “Duplicate &lt;!channel&gt;');
    expect(text).toContain('Status: `active` → `archived`');
    expect(text).toContain(':snowflake: freeze `weekend` until <!date^');
    expect(text).toContain(':warning: the preview failed');
  });
});

describe('batch card: ten calls at the largest a binding can be', () => {
  it('stays within Block Kit limits and one message', () => {
    const big = '&<>'.repeat(1000);
    const bound: CardBound = {
      statedReason: big.slice(0, 1000),
      preview: { diff: Array.from({ length: 20 }, (_, i) => ({ label: `${big.slice(0, 190)}${i}`, before: big, after: big })) },
      askedAgain: { fromActionId: 1, why: 'tool-changed', changes: [{ part: 'description', before: big, after: big }] },
      toolChanged: [{ part: 'description', before: big, after: big }],
      freezes: [{ name: big.slice(0, 200), until: UNTIL }],
      deniedNow: big,
    };
    const members: BatchMember[] = Array.from({ length: 10 }, (_, i) => ({ actionId: i + 1, toolName: 'set_status', args: { note: big }, fingerprint: 'f'.repeat(64), quorum: 1, approvals: [], state: { kind: 'pending' }, bound }));
    const blocks = batchCard({ total: 10, part: 1, parts: 1, offset: 0, waiting: 10, unattended: { agent: 'ops', caller: big.slice(0, 100) }, approvers: [], members });
    valid(blocks);
  });
});

describe('a blocked card says why it was blocked', () => {
  it('in words for the reasons the runtime records, the hook’s own (escaped) otherwise, and arguments by default', () => {
    expect(blockedReasonText(undefined)).toBeUndefined();
    expect(blockedReasonText(noMatchingGrant)).toBeUndefined();
    expect(blockedReasonText('tool gone')).toBe('its MCP server no longer offers the tool');
    const state = { kind: 'blocked' as const, reason: blockedReasonText(`hook says no ${INJECTION}`)! };
    const blocks = approvalCard(approvalCardData({ state }));
    valid(blocks);
    expect(allText(blocks)).toContain(':warning: Blocked: it did not run because a check right before it ran refused it (hook says no &lt;!channel&gt;');
    expect(allText(approvalCard(approvalCardData({ state: { kind: 'blocked' } })))).toContain(':warning: Blocked: arguments changed since this card was posted');
  });
});
