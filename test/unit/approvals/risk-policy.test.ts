import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { problemLinesFor } from '../../helpers/policy-errors.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicyFile } from '../../../src/approvals/load-policy-file.js';
import { requirementFor } from '../../../src/approvals/requirement-for.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('policy risk and requireReason', () => {
  const policy = definePolicy({
    version: 'v1',
    defaults: { requireApproval: false },
    tools: {
      delete_record: { requireApproval: true, risk: 'high' },
      issue_refund: {
        requireApproval: true,
        rules: [{ when: { arg: 'amountCents', op: 'gt', value: 100_000 }, then: { risk: 'high', requireReason: true } }],
      },
      deploy: { requireApproval: true, requireReason: true },
    },
  });

  it('defaults to low risk and no reason', () => {
    expect(requirementFor(policy, 'other', {})).toMatchObject({ risk: 'low', requireReason: false });
    expect(requirementFor(policy, 'issue_refund', { amountCents: 5 })).toMatchObject({ risk: 'low', requireReason: false });
  });

  it('takes them from tool entries, defaults and rules', () => {
    expect(requirementFor(policy, 'delete_record', {})).toMatchObject({ risk: 'high', requireReason: false });
    expect(requirementFor(policy, 'deploy', {})).toMatchObject({ risk: 'low', requireReason: true });
    expect(requirementFor(policy, 'issue_refund', { amountCents: 100_001 })).toMatchObject({ risk: 'high', requireReason: true });
    const byDefault = definePolicy({ defaults: { risk: 'high', requireReason: true }, tools: { t: { requireApproval: true } } });
    expect(requirementFor(byDefault, 't', {})).toMatchObject({ risk: 'high', requireReason: true });
    expect(requirementFor(byDefault, 'u', {})).toMatchObject({ risk: 'high', requireReason: true });
    // A rule can lower them again.
    const lowered = definePolicy({ tools: { t: { risk: 'high', requireReason: true, rules: [{ when: { arg: 'dry', op: 'eq', value: true }, then: { risk: 'low', requireReason: false } }] } } });
    expect(requirementFor(lowered, 't', { dry: true })).toMatchObject({ risk: 'low', requireReason: false });
  });

  it('refuses bad values, naming the field', () => {
    expect(problemLinesFor({ tools: { t: { risk: 'medium' } } })).toEqual(['tools.t.risk must be "low" or "high"']);
    expect(problemLinesFor({ defaults: { requireReason: 'yes' } })).toEqual(['defaults.requireReason must be true or false']);
    expect(problemLinesFor({ tools: { t: { rules: [{ when: { arg: 'a', op: 'eq', value: 1 }, then: { risk: 3 } }] } } })).toEqual([
      'tools.t.rules[0].then.risk must be "low" or "high"',
    ]);
  });

  it('keeps the version of a policy that sets neither, and changes it when set', () => {
    const plain = definePolicy({ version: 'v1', tools: { refund: { requireApproval: true, approvers: ['U0ALICE'] } } });
    expect(plain.tools.refund).not.toHaveProperty('risk');
    expect(plain.tools.refund).not.toHaveProperty('requireReason');
    // The version this policy had before risk and requireReason existed.
    const older = definePolicy({ version: 'v1', tools: { refund: { requireApproval: true, approvers: ['U0ALICE'], rules: [{ when: { arg: 'a', op: 'gt', value: 1 }, then: { quorum: 2 } }] } } });
    expect(older.version).toBe('v1@d43bf43cf6e1bd72');
    const risky = definePolicy({ version: 'v1', tools: { refund: { requireApproval: true, approvers: ['U0ALICE'], risk: 'high' } } });
    const reasoned = definePolicy({ version: 'v1', tools: { refund: { requireApproval: true, approvers: ['U0ALICE'], requireReason: true } } });
    expect(new Set([plain.version, risky.version, reasoned.version]).size).toBe(3);
    // Writing the default explicitly is a change of what is written, so it is a new version too.
    const explicitLow = definePolicy({ version: 'v1', tools: { refund: { requireApproval: true, approvers: ['U0ALICE'], risk: 'low' } } });
    expect(explicitLow.version).not.toBe(plain.version);
  });

  it('reads them from a policy file', () => {
    const file = join(tempDir('risk-policy-'), 'policy.yaml');
    writeFileSync(file, 'tools:\n  delete_record:\n    requireApproval: true\n    risk: high\n    requireReason: true\n');
    const parsed = loadPolicyFile(file);
    expect(requirementFor(parsed, 'delete_record', {})).toMatchObject({ risk: 'high', requireReason: true });
  });
});
