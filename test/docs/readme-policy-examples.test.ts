/**
 * The README's policy examples (deny, freezes, unattended) are valid policies, and its policy
 * test cases pass against them put together, as `npm run policy -- test` would run them.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { evaluateCall } from '../../src/approvals/evaluate-call.js';
import { loadPolicyCases } from '../../src/cli/policy-cases.js';
import { mismatches } from '../../src/cli/policy-report.js';
import { tempDir } from '../helpers/temp-dir.js';

const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
const part = readme.slice(readme.indexOf('### Saying no: `deny`'), readme.indexOf('## Your own agents'));
const blocks = [...part.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
const dir = tempDir('readme-policy-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README policy examples', () => {
  it('deny, freezes and unattended are each a valid policy, and the cases pass against them together', () => {
    expect(blocks).toHaveLength(4);
    const [deny, freezes, unattended, cases] = blocks.map((b) => parseYaml(b) as Record<string, any>);
    for (const example of [deny, freezes, unattended]) expect(() => definePolicy(example as PolicyInput)).not.toThrow();
    const policy = definePolicy({
      ...deny,
      freezes: freezes!.freezes,
      unattended: unattended!.unattended,
      tools: { ...unattended!.tools, ...freezes!.tools, ...deny!.tools },
    } as PolicyInput);
    writeFileSync(join(dir, 'cases.yaml'), blocks[3]!);
    const file = loadPolicyCases(join(dir, 'cases.yaml'), new Date());
    expect(file.cases.length).toBe((cases!.cases as unknown[]).length);
    for (const c of file.cases) expect({ name: c.name, problems: mismatches(c.expect, evaluateCall(policy, c.call).verdict) }).toEqual({ name: c.name, problems: [] });
  });
});
