import { describe, expect, it } from 'vitest';
import { approveReasonModal, parseApproveReasonModal, argumentsModal, declineModal, parseDeclineModal } from '../../../../src/slack/approval/approval-modals.js';
import { approvalCard } from '../../../../src/slack/card/approval-card.js';
import { checkedView, blockLimitErrors, viewLimitErrors } from '../../../../src/simulator/index.js';
import { approvalCardData } from '../../../helpers/slack/approval-card-data.js';
import { allText, expectNoInjection, INJECTION } from '../../../helpers/slack/block-text.js';

const FP = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

/** A block's mrkdwn text, when it has one. */
function textOfBlock(b: unknown): string {
  return (b as { text?: { text?: string } }).text?.text ?? '';
}

function texts(view: { blocks: unknown[] }): string {
  return JSON.stringify(view.blocks);
}

describe('argumentsModal', () => {
  it('shows the exact arguments as pretty JSON, read-only', () => {
    const args = { orderId: '1042', amountCents: 150050 };
    const view = argumentsModal({ actionId: 7, toolName: 'issue_refund', args });
    expect(checkedView({ view }, 'modal')).toBe(view);
    expect(view.submit).toBeUndefined();
    expect(view.blocks.some((b) => b.type === 'input')).toBe(false);
    const code = view.blocks.map(textOfBlock).join('\n');
    expect(code).toContain('```\n' + JSON.stringify(args, null, 2) + '\n```');
    // The fingerprint is on the card's context line only.
    expect(texts(view)).not.toContain('Fingerprint');
  });

  it('shows the tool’s preview in full after the arguments, escaped, within limits at its largest', () => {
    const view = argumentsModal({ actionId: 7, toolName: 'set_status', args: { id: 'abc' }, preview: { fields: [{ label: 'Record', value: 'abc <!channel>' }], diff: [{ label: 'Status', before: 'active', after: 'archived' }] } });
    expect(checkedView({ view }, 'modal')).toBe(view);
    const code = view.blocks.map(textOfBlock).join('\n');
    expect(code).toContain("*The tool's preview* of what the call acts on");
    expect(code).toContain('*Record*\n```\nabc &lt;!channel&gt;\n```');
    expect(code).toContain('*Status* now:\n```\nactive\n```');
    expect(code).toContain('*Status* after the call:\n```\narchived\n```');

    const big = '&'.repeat(3000);
    const twenty = Array.from({ length: 20 }, (_, i) => ({ label: `${'L'.repeat(195)}${i}`, value: big }));
    const largest = argumentsModal({
      actionId: 7,
      toolName: 'bulk',
      args: { items: Array.from({ length: 20_000 }, (_, i) => i), long: big },
      preview: { fields: twenty, diff: twenty.map((f) => ({ label: f.label, before: big, after: big })) },
    });
    expect(checkedView({ view: largest }, 'modal')).toBe(largest);
    expect(texts(largest)).toContain('Cut: showing');
    expect(argumentsModal({ actionId: 7, toolName: 't', args: {}, preview: { failed: 'down <!here>' } }).blocks.map(textOfBlock).join('\n')).toContain("*The tool's preview failed:* down &lt;!here&gt;");
  });

  it('splits long JSON over code blocks within limits and says when it is cut', () => {
    const args = { items: Array.from({ length: 20_000 }, (_, i) => ({ sku: `<&>${i}`, qty: i })), long: '&'.repeat(9000) };
    const view = argumentsModal({ actionId: 7, toolName: 'bulk', args });
    expect(checkedView({ view }, 'modal')).toBe(view);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(texts(view)).toContain('Cut: showing');
    for (const b of view.blocks) expect(textOfBlock(b).split('```').length - 1).toBe(textOfBlock(b).includes('```') ? 2 : 0);
  });

  it('escapes what the model wrote', () => {
    const view = argumentsModal({ actionId: 7, toolName: '<!channel>', args: { note: '<!here> ```' } });
    expect(checkedView({ view }, 'modal')).toBe(view);
    expect(texts(view)).not.toContain('<!here>');
    expect(texts(view)).not.toContain('<!channel>');
  });
});

describe('approveReasonModal', () => {
  it('asks for a required reason of at most 3000 characters, bound to the request and fingerprint', () => {
    const view = approveReasonModal({ actionId: 9, fingerprint: FP, toolName: 'delete_record', title: 'Delete record <b>', risk: 'high' });
    expect(checkedView({ view }, 'modal')).toBe(view);
    expect(view.callback_id).toBe('approval.approve_reason_modal');
    expect(view.private_metadata).toBe('{"a":9,"f":"0123456789abcdef"}');
    const input = view.blocks.find((b) => b.type === 'input') as { optional: boolean; element: { max_length: number } };
    expect(input.optional).toBe(false);
    expect(input.element.max_length).toBe(3000);
    expect(texts(view)).toContain('high-risk');
    expect(texts(view)).toContain('Delete record &lt;b&gt;');
  });

  it('reads a submission, trimmed; blank is empty; foreign metadata is not ours', () => {
    const values = (value: string) => ({ reason: { reason: { type: 'plain_text_input', value } } });
    expect(parseApproveReasonModal('{"a":9,"f":"0123456789abcdef"}', values('  ok, verified  '))).toEqual({ actionId: 9, fingerprintPrefix: '0123456789abcdef', reason: 'ok, verified' });
    expect(parseApproveReasonModal('{"a":9,"f":"0123456789abcdef"}', values('   '))?.reason).toBe('');
    expect(parseApproveReasonModal('{"a":9}', values('x'))).toBeUndefined();
    expect(parseApproveReasonModal('nope', values('x'))).toBeUndefined();
  });
});

describe('approval card blocks pass the simulator checker', () => {
  it('in every variant', () => {
    for (const over of [{}, { risk: 'high' as const }, { requireReason: true }, { risk: 'high' as const, requireReason: true, title: 'T'.repeat(400) }]) {
      expect(blockLimitErrors(approvalCard(approvalCardData(over)))).toEqual([]);
    }
  });
});

const FINGERPRINT = 'fedcba9876543210fedcba9876543210';

describe('declineModal', () => {
  const view = declineModal({ actionId: 42, fingerprint: FINGERPRINT, toolName: 'issue_refund' });

  it('is a valid modal', () => {
    expect(viewLimitErrors(view, 'modal')).toEqual([]);
    expectNoInjection(view);
  });

  it('is identified by its callback id and bound to the request and fingerprint', () => {
    expect(view.callback_id).toBe('approval.decline_modal');
    expect(JSON.parse(view.private_metadata ?? '')).toEqual({ a: 42, f: 'fedcba9876543210' });
    expect(view.title.text.length).toBeLessThanOrEqual(24);
    expect(view.submit?.text).toBe('Decline');
    expect(view.close?.text).toBe('Cancel');
    expect(allText(view)).toContain('`issue_refund`');
  });

  it('asks for an optional multiline reason', () => {
    expect(view.blocks[1]).toMatchObject({
      type: 'input',
      block_id: 'reason',
      optional: true,
      element: { type: 'plain_text_input', action_id: 'reason', multiline: true, max_length: 3000 },
    });
  });

  it('stays valid and escaped with a hostile tool name', () => {
    const hostile = declineModal({ actionId: 1, fingerprint: INJECTION.repeat(100), toolName: INJECTION.repeat(100) });
    expect(viewLimitErrors(hostile, 'modal')).toEqual([]);
    expectNoInjection(hostile);
  });
});

describe('parseDeclineModal', () => {
  const metadata = JSON.stringify({ a: 42, f: 'fedcba9876543210' });

  it('reads the request, fingerprint prefix and trimmed reason', () => {
    expect(parseDeclineModal(metadata, { reason: { reason: { type: 'plain_text_input', value: '  Too risky \n' } } })).toEqual({
      actionId: 42,
      fingerprintPrefix: 'fedcba9876543210',
      reason: 'Too risky',
    });
  });

  it('leaves the reason out when none was given', () => {
    expect(parseDeclineModal(metadata, { reason: { reason: { type: 'plain_text_input', value: null } } })).toEqual({
      actionId: 42,
      fingerprintPrefix: 'fedcba9876543210',
    });
    expect(parseDeclineModal(metadata, {})).toEqual({ actionId: 42, fingerprintPrefix: 'fedcba9876543210' });
  });

  it('rejects metadata that is not ours', () => {
    for (const bad of [undefined, '', 'nope', '{"a":"42","f":"x"}', '{"a":42}', '{"a":1.5,"f":"x"}', 'null']) {
      expect(parseDeclineModal(bad, {})).toBeUndefined();
    }
  });
});
