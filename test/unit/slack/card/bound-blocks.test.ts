import { describe, expect, it } from 'vitest';
import { approvalCard } from '../../../../src/slack/card/approval-card.js';
import { batchCard, type BatchMember } from '../../../../src/slack/batch/batch-card.js';
import type { CardBound } from '../../../../src/slack/card/card-types.js';
import { blockLimitErrors } from '../../../../src/simulator/index.js';
import { LIMITS } from '../../../../src/slack/kit/limits.js';
import { ACTION_IDS } from '../../../../src/slack/kit/action-ids.js';
import { blockedReasonText } from '../../../../src/slack/card/render-card.js';
import { noMatchingGrant } from '../../../../src/db/grants.js';
import { approvalCardData } from '../../../helpers/slack/approval-card-data.js';
import { allText, expectNoInjection, expectWellFormed, INJECTION } from '../../../helpers/slack/block-text.js';

const IDS = ['U0REQUESTER', 'U0APPROVER1', 'U0APPROVER2', 'S0FINANCE01'];
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
