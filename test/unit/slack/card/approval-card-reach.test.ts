import { describe, expect, it } from 'vitest';
import { approvalCard } from '../../../../src/slack/card/approval-card.js';
import { whoDecides } from '../../../../src/slack/kit/who-decides.js';
import { approvalCardData } from '../../../helpers/slack/approval-card-data.js';
import { allText } from '../../../helpers/slack/block-text.js';


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
