import { describe, expect, it } from 'vitest';
import { approversAt, isEscalated } from '../../../src/approvals/approvers-at.js';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { requirementFor } from '../../../src/approvals/requirement-for.js';

const HOUR = 3_600_000;
const CREATED = new Date('2030-01-01T00:00:00Z');
const at = (ms: number) => new Date(CREATED.getTime() + ms);

const policy = definePolicy({
  tools: {
    refund: { requireApproval: true, approvers: ['U0ALICE'], escalateAfter: '4h', escalateTo: ['S0LEADS', 'U0ALICE'] },
    open: { requireApproval: true, escalateAfter: '1h', escalateTo: ['U0BOSS'] },
    plain: { requireApproval: true, approvers: ['U0ALICE'] },
  },
});

describe('approversAt: escalation adds approvers once the request has waited', () => {
  it('is the policy list before escalateAfter and the union after it', () => {
    const r = requirementFor(policy, 'refund', {});
    expect(approversAt(r, CREATED, at(4 * HOUR - 1))).toEqual(['U0ALICE']);
    expect(isEscalated(r, CREATED, at(4 * HOUR - 1))).toBe(false);
    expect(approversAt(r, CREATED, at(4 * HOUR))).toEqual(['S0LEADS', 'U0ALICE']);
    expect(isEscalated(r, CREATED, at(4 * HOUR))).toBe(true);
  });

  it('never narrows "anyone may decide" to the escalation list', () => {
    expect(approversAt(requirementFor(policy, 'open', {}), CREATED, at(2 * HOUR))).toEqual([]);
  });

  it('changes nothing without an escalation', () => {
    const r = requirementFor(policy, 'plain', {});
    expect(approversAt(r, CREATED, at(100 * HOUR))).toEqual(['U0ALICE']);
    expect(isEscalated(r, CREATED, at(100 * HOUR))).toBe(false);
  });
});
