import { describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import type { PendingAction } from '../../../src/db/rows.js';
import { scriptedModel } from '../../helpers/scripted-model.js';
import { issueRefund, pendingRefundRow } from '../../helpers/pending-request-row.js';

const policy = definePolicy({
  defaults: { requireApproval: true, approvers: ['U0OPS'] },
  tools: {
    issue_refund: { approvers: ['U0OPS', 'U0FIN'], allowSelfApproval: false, rules: [{ when: { arg: 'amountCents', op: 'gt', value: 100000 }, then: { requireReason: true, allowEdit: false } }] },
  },
});
// Storage is never touched: a check reads the agent's tools and policy only, and writes nothing.
const agent = new Agent({ id: 'ops', model: scriptedModel([{ text: 'hi' }]), tools: { issue_refund: issueRefund }, storage: {} as never, policy });

function row(overrides: Partial<PendingAction> = {}): PendingAction {
  return pendingRefundRow(policy.version, overrides);
}

const ops = { userId: 'U0OPS' };
const big = { args: { orderId: 'A-2', amountCents: 200000 } };

describe('Agent.checkDecision', () => {
  it('allows an approver, with the requirement worked out and whether the policy changed', async () => {
    const check = await agent.checkDecision(row(), ops, 'approve');
    expect(check).toMatchObject({ outcome: 'allowed', policyChanged: false, requirement: { approvers: ['U0FIN', 'U0OPS'] } });
    await expect(agent.checkDecision(row({ policy_version: 'old' }), ops, 'approve')).resolves.toMatchObject({ outcome: 'allowed', policyChanged: true });
  });

  it('says a request that is not pending was decided, or expired', async () => {
    await expect(agent.checkDecision(row({ status: 'approved' }), ops, 'decline')).resolves.toEqual({ outcome: 'already-decided' });
    await expect(agent.checkDecision(row({ status: 'expired' }), ops, 'approve')).resolves.toEqual({ outcome: 'expired', closed: true });
    await expect(agent.checkDecision(row({ expires_at: new Date(Date.now() - 1000) }), ops, 'approve')).resolves.toEqual({ outcome: 'expired', closed: false });
  });

  it('refuses arguments other than those the decider saw', async () => {
    await expect(agent.checkDecision(row(), ops, 'approve', { fingerprint: 'abcdef' })).resolves.toMatchObject({ outcome: 'allowed' });
    await expect(agent.checkDecision(row(), ops, 'approve', { fingerprint: '012345' })).resolves.toEqual({ outcome: 'fingerprint-mismatch' });
  });

  it('refuses someone who may not decide, self-approval, and a reason out of bounds', async () => {
    await expect(agent.checkDecision(row(), { userId: 'U0MALLORY' }, 'approve')).resolves.toMatchObject({ outcome: 'not-allowed', why: 'not-an-approver' });
    await expect(agent.checkDecision(row({ requester: 'U0OPS' }), ops, 'approve')).resolves.toMatchObject({ outcome: 'not-allowed', why: 'self-approval' });
    // The requester may always withdraw their request.
    await expect(agent.checkDecision(row({ requester: 'U0OPS' }), ops, 'decline')).resolves.toMatchObject({ outcome: 'allowed' });
    await expect(agent.checkDecision(row(), ops, 'approve', { reason: 'x'.repeat(3001) })).resolves.toMatchObject({ outcome: 'not-allowed', why: 'reason-too-long' });
    await expect(agent.checkDecision(row(), ops, 'approve', { reason: 42 })).resolves.toMatchObject({ outcome: 'not-allowed', why: 'reason-invalid' });
  });

  it('wants the reason the policy asks for, unless a form asks for it next', async () => {
    await expect(agent.checkDecision(row(big), ops, 'approve')).resolves.toMatchObject({ outcome: 'not-allowed', why: 'reason-required' });
    await expect(agent.checkDecision(row(big), ops, 'approve', { reason: 'customer called' })).resolves.toMatchObject({ outcome: 'allowed' });
    await expect(agent.checkDecision(row(big), ops, 'approve', { reasonToCome: true })).resolves.toMatchObject({ outcome: 'allowed' });
    await expect(agent.checkDecision(row(big), ops, 'decline')).resolves.toMatchObject({ outcome: 'allowed' });
  });

  it('an edit is held to the approve rule, and to whether the request may be edited', async () => {
    await expect(agent.checkDecision(row(), ops, 'edit')).resolves.toMatchObject({ outcome: 'allowed' });
    await expect(agent.checkDecision(row({ requester: 'U0OPS' }), ops, 'edit')).resolves.toMatchObject({ outcome: 'not-allowed', why: 'self-approval' });
    await expect(agent.checkDecision(row(big), ops, 'edit')).resolves.toEqual({ outcome: 'not-editable', why: 'edit-not-allowed' });
    await expect(agent.checkDecision(row({ tool_name: 'gone' }), ops, 'edit')).resolves.toEqual({ outcome: 'not-editable', why: 'tool-not-found' });
  });

  it('says a suspended call is no approval request', async () => {
    await expect(agent.checkDecision(row({ kind: 'suspension' }), ops, 'approve')).resolves.toEqual({ outcome: 'not-found' });
  });
});
