import { describe, expect, it } from 'vitest';
import { escalationText, expiredText, lastWarningText, reminderText } from '../../../../src/slack/kit/notice-text.js';
import { quorumProgressText } from '../../../../src/slack/approval/show-decision.js';

const EXPIRES = new Date('2030-01-02T03:04:05Z');
const HOSTILE = 'evil <!channel> *tool*';

describe('notice texts', () => {
  const facts = { actionId: 7, toolName: 'issue_refund', expiresAt: EXPIRES, to: ['U0ALICE', 'S0FINANCE'], notify: 'mentions' as const };

  it('address the approvers still needed by mention, and say the request and its expiry', () => {
    expect(reminderText(facts)).toBe(
      ':bell: <@U0ALICE> and <!subteam^S0FINANCE>: `issue_refund` (request #7) is still waiting for a decision. It expires <!date^1893553445^{date_short_pretty} {time}|2030-01-02T03:04:05.000Z>.',
    );
    expect(lastWarningText(facts)).toMatch(/^:hourglass_flowing_sand: <@U0ALICE> and <!subteam\^S0FINANCE>: last call for `issue_refund` \(request #7\)/);
    expect(escalationText({ ...facts, to: ['U0BOSS'] })).toMatch(/^:arrow_double_up: <@U0BOSS>: `issue_refund` \(request #7\) has waited too long and is escalated to you/);
    expect(expiredText({ actionId: 7, toolName: 'issue_refund', expiresAt: EXPIRES, requester: 'U0REQ' })).toMatch(/^:hourglass: <@U0REQ>, your request `issue_refund` \(request #7\) expired/);
  });

  it('ping nobody with notify: none, and nobody at all when nobody is listed', () => {
    expect(reminderText({ ...facts, notify: 'none' })).toMatch(/^:bell: `U0ALICE` and `S0FINANCE`: /);
    expect(reminderText({ ...facts, to: [] })).toMatch(/^:bell: `issue_refund`/);
  });

  it('escape a hostile tool name everywhere', () => {
    for (const text of [
      reminderText({ ...facts, toolName: HOSTILE }),
      lastWarningText({ ...facts, toolName: HOSTILE }),
      escalationText({ ...facts, toolName: HOSTILE }),
      expiredText({ actionId: 7, toolName: HOSTILE, expiresAt: EXPIRES }),
      quorumProgressText({ actionId: 7, toolName: HOSTILE, quorum: 2, approvals: ['U0BOB'], remaining: ['U0ALICE'], notify: 'mentions' }),
    ]) {
      expect(text).not.toContain('<!channel>');
      expect(text).toContain('&lt;!channel&gt;');
    }
  });

  it('quorum progress says how many more are needed', () => {
    expect(quorumProgressText({ actionId: 7, toolName: 't', quorum: 3, approvals: ['U0BOB'], remaining: ['S0FINANCE'], notify: 'mentions' })).toBe(
      '1 of 3: <@U0BOB> approved `t` (request #7); 2 more needed from <!subteam^S0FINANCE>.',
    );
  });
});
