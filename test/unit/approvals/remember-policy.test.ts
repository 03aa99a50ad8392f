import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { loadPolicyFile } from '../../../src/approvals/load-policy-file.js';
import { policyErrorFor } from '../../helpers/policy-errors.js';
import type { PolicyInput } from '../../../src/approvals/policy-schema.js';
import { requirementFor } from '../../../src/approvals/requirement-for.js';
import { rememberForOf } from '../../../src/agent/remembered-call.js';
import { createTool } from '../../../src/agent/tool.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { z } from 'zod';

const base = { defaults: { requireApproval: true, approvers: ['U0ALICE'] }, tools: { deploy: {} } } satisfies PolicyInput;

describe('policy: rememberFor and risk', () => {
  it('reads rememberFor as a duration in ms on tool entries, defaults and rules', () => {
    const policy = definePolicy({
      defaults: { requireApproval: true, rememberFor: '30m' },
      tools: {
        deploy: { rememberFor: '1h', rules: [{ when: { arg: 'env', op: 'eq', value: 'prod' }, then: { rememberFor: 900 } }] },
        wipe: { risk: 'high' },
      },
    });
    expect(policy.defaults.rememberFor).toBe(30 * 60_000);
    expect(requirementFor(policy, 'deploy', { env: 'dev' }).rememberFor).toBe(3_600_000);
    expect(requirementFor(policy, 'deploy', { env: 'prod' }).rememberFor).toBe(900_000);
    expect(requirementFor(policy, 'other', {}).rememberFor).toBe(30 * 60_000);
    expect(requirementFor(policy, 'wipe', {}).risk).toBe('high');
    expect(requirementFor(policy, 'deploy', {}).risk).toBe('low');
  });

  it('leaves rememberFor out of the requirement when no policy sets it', () => {
    const requirement = requirementFor(definePolicy(base), 'deploy', {});
    expect('rememberFor' in requirement).toBe(false);
  });

  it('keeps the version of a policy that sets neither field', () => {
    // The version this policy had before rememberFor and risk existed (computed on main).
    const before = '343fca11193a2c07';
    expect(definePolicy(base).version).toBe(before);
    expect(definePolicy({ ...base, tools: { deploy: { rememberFor: '1h' } } }).version).not.toBe(before);
    expect(definePolicy({ ...base, tools: { deploy: { risk: 'high' } } }).version).not.toBe(before);
    // "1h" and 3600 seconds mean the same, so they make the same version.
    expect(definePolicy({ ...base, tools: { deploy: { rememberFor: '1h' } } }).version).toBe(
      definePolicy({ ...base, tools: { deploy: { rememberFor: 3600 } } }).version,
    );
  });

  it.each([
    ['zero', '0s', /longer than zero/],
    ['negative', -5, /positive whole number/],
    ['more than 7 days', '8d', /at most 7 days/],
    ['not a duration', 'an hour', /must be a number of seconds or a duration/],
  ])('rejects a rememberFor that is %s', (_name, value, message) => {
    const error = policyErrorFor({ tools: { deploy: { rememberFor: value } } });
    expect(error.field).toBe('tools.deploy.rememberFor');
    expect(error.message).toMatch(message);
  });

  it('accepts exactly 7 days', () => {
    expect(definePolicy({ tools: { deploy: { rememberFor: '7d' } } }).tools.deploy?.rememberFor).toBe(7 * 86_400_000);
  });

  it('rejects a risk that is neither low nor high', () => {
    expect(policyErrorFor({ tools: { deploy: { risk: 'medium' } } }).message).toContain('tools.deploy.risk must be "low" or "high"');
  });

  it.each([
    ['a tool entry', { tools: { deploy: { risk: 'high', rememberFor: '1h' } } }, 'tools.deploy.rememberFor'],
    ['the defaults', { defaults: { risk: 'high', rememberFor: '1h' } }, 'defaults.rememberFor'],
    ['a rule', { tools: { deploy: { rules: [{ when: { arg: 'env', op: 'eq', value: 'prod' }, then: { risk: 'high', rememberFor: '1h' } }] } } }, 'tools.deploy.rules[0].then.rememberFor'],
  ])('refuses rememberFor with risk "high" on %s', (_where, input, field) => {
    const error = policyErrorFor(input);
    expect(error.message).toContain(`${field} cannot be set together with risk: "high"`);
  });

  it('refuses the conflict in a policy file too, naming the file', () => {
    const dir = tempDir('remember-policy-');
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, 'tools:\n  deploy:\n    requireApproval: true\n    risk: high\n    rememberFor: 1h\n');
    expect(() => loadPolicyFile(file)).toThrow(/policy\.yaml: tools\.deploy\.rememberFor cannot be set together with risk: "high"/);
  });
});

describe('whether an approval may be remembered', () => {
  const policy = definePolicy({
    defaults: { requireApproval: true, rememberFor: '1h' },
    tools: { wipe: { risk: 'high' }, deploy: { rules: [{ when: { arg: 'env', op: 'eq', value: 'prod' }, then: { risk: 'high' } }] } },
  });
  const tool = (risk?: 'low' | 'high', throws = false) =>
    createTool({
      id: 'deploy',
      description: 'deploy',
      inputSchema: z.object({ env: z.string() }),
      describe: (args: { env: string }) => {
        if (throws) throw new Error('cannot describe');
        return { title: `Deploy to ${args.env}`, fields: [], ...(risk ? { risk } : {}) };
      },
      execute: async () => ({}),
    });

  it('is the policy\'s rememberFor for a requested call nobody marked high-risk', () => {
    expect(rememberForOf(requirementFor(policy, 'deploy', { env: 'dev' }), tool(), { env: 'dev' }, 'U0BOB')).toBe(3_600_000);
    expect(rememberForOf(requirementFor(policy, 'deploy', { env: 'dev' }), undefined, { env: 'dev' }, 'U0BOB')).toBe(3_600_000);
  });

  it('never for a run nobody requested, a high-risk entry or rule (rememberFor inherited from defaults), or a tool that says high or cannot say', () => {
    expect(rememberForOf(requirementFor(policy, 'deploy', { env: 'dev' }), tool(), { env: 'dev' }, undefined)).toBeUndefined();
    expect(rememberForOf(requirementFor(policy, 'deploy', { env: 'dev' }), tool(), { env: 'dev' }, null)).toBeUndefined();
    expect(rememberForOf(requirementFor(policy, 'wipe', {}), undefined, {}, 'U0BOB')).toBeUndefined();
    expect(rememberForOf(requirementFor(policy, 'deploy', { env: 'prod' }), tool(), { env: 'prod' }, 'U0BOB')).toBeUndefined();
    expect(rememberForOf(requirementFor(policy, 'deploy', { env: 'dev' }), tool('high'), { env: 'dev' }, 'U0BOB')).toBeUndefined();
    expect(rememberForOf(requirementFor(policy, 'deploy', { env: 'dev' }), tool(undefined, true), { env: 'dev' }, 'U0BOB')).toBeUndefined();
    expect(rememberForOf(requirementFor(definePolicy({ defaults: { requireApproval: true } }), 'deploy', {}), tool(), {}, 'U0BOB')).toBeUndefined();
  });
});
