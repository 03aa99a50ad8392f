import { describe, expect, it } from 'vitest';
import { approvalCard } from '../../../src/slack/blocks/approval-card.js';
import type { ApprovalCardData } from '../../../src/slack/blocks/card-types.js';
import { whoDecides } from '../../../src/slack/blocks/who-decides.js';
import { allText } from './block-text.js';

function data(over: Partial<ApprovalCardData> = {}): ApprovalCardData {
  return {
    actionId: 42,
    runId: 'run_1',
    toolCallId: 'call_1',
    toolName: 'issue_refund',
    args: { orderId: 'A-1001' },
    path: ['billing'],
    requester: 'U0REQUESTER',
    approvers: ['U0APPROVER1', 'S0FINANCE01'],
    quorum: 1,
    approvals: [],
    expiresAt: new Date('2030-01-02T03:04:05Z'),
    fingerprint: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    state: { kind: 'pending' },
    ...over,
  };
}

describe('approval card: who is notified', () => {
  it('mentions users and user groups by default', () => {
    const t = allText(approvalCard(data()));
    expect(t).toContain('*Approvers:* <@U0APPROVER1> or <!subteam^S0FINANCE01>');
  });

  it('with notify: none shows the approvers as ids that ping nobody', () => {
    const t = allText(approvalCard(data({ notify: 'none' })));
    expect(t).toContain('*Approvers:* `U0APPROVER1` or `S0FINANCE01`');
    expect(t).not.toContain('<!subteam^');
    expect(t).not.toContain('<@U0APPROVER1>');
  });

  it('never turns an invalid id into a broadcast, whatever the mode', () => {
    expect(whoDecides(['<!channel>', 'U0OK'], 'mentions')).toBe('&lt;!channel&gt; or <@U0OK>');
    expect(whoDecides(['<!channel>'], 'none')).toBe('&lt;!channel&gt;');
  });

  it('says on a pending card that the requester can reply cancel, and not once decided', () => {
    expect(allText(approvalCard(data()))).toContain('<@U0REQUESTER> can reply `cancel` in the thread to withdraw it');
    const decided = allText(approvalCard(data({ state: { kind: 'approved', by: ['U0APPROVER1'], at: new Date() } })));
    expect(decided).not.toContain('cancel');
  });

  it('says where copies went while pending', () => {
    expect(allText(approvalCard(data({ routedTo: '<#C0APPROVALS>' })))).toContain('*Sent to:* <#C0APPROVALS>');
  });
});
