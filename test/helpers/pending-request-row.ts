import { z } from 'zod';
import { createTool } from '../../src/agent/tool.js';
import type { PendingAction } from '../../src/db/rows.js';

/** A pending approval request of `issue_refund` as its row is stored, for tests that draw or check one without a database. */
export function pendingRefundRow(policyVersion: string, overrides: Partial<PendingAction> = {}): PendingAction {
  return {
    id: 7,
    run_id: 'run-1',
    root_run_id: 'run-1',
    tool_call_id: 'call-1',
    tool_name: 'issue_refund',
    kind: 'approval',
    args: { orderId: 'A-1', amountCents: 5000 },
    fingerprint: 'abcdef'.padEnd(64, '0'),
    suspend_payload: null,
    path: null,
    status: 'pending',
    requester: 'U0REQ',
    policy_version: policyVersion,
    quorum: 1,
    approvals: [],
    expires_at: new Date(Date.now() + 3_600_000),
    decided_by: null,
    decided_at: null,
    reason: null,
    resume_data: null,
    created_at: new Date(),
    ...overrides,
  };
}

/** The tool the row above asks for: refunds an order, always asking first. */
export const issueRefund = createTool({
  id: 'issue_refund',
  description: 'Refunds an order',
  inputSchema: z.object({ orderId: z.string(), amountCents: z.number() }),
  requireApproval: true,
  execute: async () => 'refunded',
});
