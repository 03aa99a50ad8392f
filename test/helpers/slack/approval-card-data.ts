import type { ApprovalCardData } from '../../../src/slack/card/card-types.js';

const CARD_FINGERPRINT = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
export const CARD_EXPIRES = new Date('2030-01-02T03:04:05Z');

/** A pending approval card's data (a refund in billing, two approvers: a user and a group), with `over` on top. */
export function approvalCardData(over: Partial<ApprovalCardData> = {}): ApprovalCardData {
  return {
    actionId: 42,
    runId: 'run_1',
    toolCallId: 'call_1',
    toolName: 'issue_refund',
    args: { orderId: 'A-1001', amount: 25, currency: 'EUR' },
    path: ['ops', 'billing'],
    requester: 'U0REQUESTER',
    approvers: ['U0APPROVER1', 'S0FINANCE01'],
    quorum: 1,
    approvals: [],
    expiresAt: CARD_EXPIRES,
    fingerprint: CARD_FINGERPRINT,
    policyVersion: 'pv_7f3a',
    state: { kind: 'pending' },
    ...over,
  };
}
