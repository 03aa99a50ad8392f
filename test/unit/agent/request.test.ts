import { describe, expect, it } from 'vitest';
import { isRequest, requestOf, rowLike, rowOf } from '../../../src/agent/request.js';
import { pendingRefundRow } from '../../helpers/pending-request-row.js';
import type { PendingAction } from '../../../src/db/rows.js';

/** A row with every column set, the optional ones included, as a statement returns it. */
function fullRow(): PendingAction {
  return pendingRefundRow('v1', {
    path: ['root', 'payments'],
    suspend_payload: { question: 'Which order?' },
    resume_data: { answer: 'A-1' },
    decided_by: 'U0OPS',
    decided_at: new Date('2026-07-01T10:00:00.000Z'),
    reason: 'looks fine',
    status: 'approved',
    approvals: [{ userId: 'U0OPS', at: '2026-07-01T10:00:00.000Z' }],
    limit_hits: [{ index: 0, total: 120000 }],
    remembered_unused: { rememberedGrantId: 3, allowedBy: 'U0OPS', approvals: 1, expiresAt: '2026-07-02T00:00:00.000Z', why: ['limits'] },
    edit: { fromActionId: 6, editor: 'U0OPS', proposedArgs: { orderId: 'A-0' } },
    stated_reason: 'the customer asked',
    preview: { text: 'refund 50.00' },
    tool_pin: { digest: 'd1' },
    asked_again: { why: 'state-changed' },
    caller: 'cron',
  });
}

describe('Request', () => {
  it('turns back into the row it was read from, every column as stored', () => {
    const row = fullRow();
    expect(rowOf(requestOf(row))).toEqual(row);
  });

  it('turns a row with nothing optional back into the same row (nulls stay nulls)', () => {
    const row = { ...pendingRefundRow('v1'), limit_hits: null, remembered_unused: null, edit: null, stated_reason: null, preview: null, tool_pin: null, asked_again: null, caller: null };
    expect(rowOf(requestOf(row))).toEqual(row);
    expect(requestOf(row)).not.toHaveProperty('suspendPayload');
    expect(requestOf(row)).not.toHaveProperty('statedReason');
  });

  it('names what a front end reads in camelCase', () => {
    const request = requestOf(fullRow());
    expect(request).toMatchObject({
      toolName: 'issue_refund',
      runId: 'run-1',
      toolCallId: 'call-1',
      path: ['root', 'payments'],
      suspendPayload: { question: 'Which order?' },
      resumeData: { answer: 'A-1' },
      decidedBy: 'U0OPS',
      statedReason: 'the customer asked',
    });
    expect(request.decidedAt).toEqual(new Date('2026-07-01T10:00:00.000Z'));
  });

  it('tells a Request from a row, and hands the runtime a row either way', () => {
    const row = fullRow();
    const request = requestOf(row);
    expect(isRequest(request)).toBe(true);
    expect(isRequest(row)).toBe(false);
    expect(rowLike(row)).toBe(row);
    expect(rowLike(request)).toEqual(row);
  });
});
