import { describe, expect, it } from 'vitest';
import type { Decision } from '../../../../src/agent/api-types.js';
import type { PendingAction } from '../../../../src/db/rows.js';
import { refusalText } from '../../../../src/slack/card/button-check.js';

const action = (over: Partial<PendingAction> = {}): PendingAction => ({
  id: 7,
  run_id: 'r',
  root_run_id: 'r',
  tool_call_id: 'c',
  tool_name: 'delete_record',
  kind: 'approval',
  args: {},
  fingerprint: 'f'.repeat(64),
  suspend_payload: null,
  path: ['ops'],
  status: 'pending',
  requester: 'U0REQ',
  policy_version: 'v',
  quorum: 1,
  approvals: [],
  expires_at: null,
  decided_by: null,
  decided_at: null,
  reason: null,
  resume_data: null,
  created_at: new Date(),
  ...over,
});

describe('refusalText', () => {
  it('says nothing when the decision went through', () => {
    expect(refusalText({ outcome: 'approved', action: action({ status: 'approved' }) }, 'U1')).toBeUndefined();
    expect(refusalText({ outcome: 'approval-recorded', action: action(), approvals: ['U1'], quorum: 2, alreadyCounted: false }, 'U1')).toBeUndefined();
  });

  it('explains every refusal, escaping what came from elsewhere', () => {
    const cases: Array<[Decision, RegExp]> = [
      [{ outcome: 'not-allowed', action: action(), why: 'not-an-approver', message: 'Only <!channel> can.' }, /Only &lt;!channel&gt; can\. Nothing was changed/],
      [{ outcome: 'already-decided', action: action({ status: 'approved', decided_by: 'U0BOB' }) }, /already approved by <@U0BOB>/],
      [{ outcome: 'expired', action: action({ status: 'expired' }) }, /expired/],
      [{ outcome: 'fingerprint-mismatch', action: action() }, /does not match the pending request/],
      [{ outcome: 'not-found', runId: '', runExists: false }, /could not find that request/],
      [{ outcome: 'approval-recorded', action: action(), approvals: ['U1'], quorum: 2, alreadyCounted: true }, /already counted \(1 of 2\)/],
    ];
    for (const [decision, expected] of cases) expect(refusalText(decision, 'U1')).toMatch(expected);
  });
});
