import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../../../src/approvals/load-policy-file.js';
import { PolicyError } from '../../../src/approvals/policy-error.js';
import { reloadPolicyFile } from '../../../src/approvals/reload-policy-file.js';

const dir = mkdtempSync(join(tmpdir(), 'reload-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reloadPolicyFile', () => {
  const file = join(dir, 'policy.yaml');

  it('is changed when the file decides something else, with both versions', () => {
    writeFileSync(file, 'tools:\n  t:\n    requireApproval: true\n');
    const current = loadPolicyFile(file);
    writeFileSync(file, 'tools:\n  t:\n    requireApproval: true\n    quorum: 2\n');
    const result = reloadPolicyFile(file, current);
    expect(result).toMatchObject({ outcome: 'changed', from: current.version });
    if (result.outcome !== 'changed') throw new Error('unreachable');
    expect(result.to).toBe(result.policy.version);
    expect(result.to).not.toBe(current.version);
    expect(result.policy.tools.t?.quorum).toBe(2);
  });

  it('is unchanged when the file was only reformatted', () => {
    writeFileSync(file, 'tools:\n  t:\n    requireApproval: true\n    expiresIn: 1h\n');
    const current = loadPolicyFile(file);
    writeFileSync(file, '# reviewed\ntools: { t: { expiresIn: 3600, requireApproval: true } }\n');
    expect(reloadPolicyFile(file, current)).toEqual({ outcome: 'unchanged', version: current.version });
  });

  it('is invalid, keeping the version in force, when the file is broken or gone', () => {
    writeFileSync(file, 'tools:\n  t:\n    requireApproval: true\n');
    const current = loadPolicyFile(file);
    writeFileSync(file, 'tools:\n  t:\n    requireApproval: maybe\n');
    const broken = reloadPolicyFile(file, current);
    expect(broken).toMatchObject({ outcome: 'invalid', kept: current.version });
    if (broken.outcome !== 'invalid') throw new Error('unreachable');
    expect(broken.error).toBeInstanceOf(PolicyError);
    expect(broken.error.message).toBe(`Invalid policy in ${file}: tools.t.requireApproval must be true or false`);

    rmSync(file);
    const gone = reloadPolicyFile(file, current);
    expect(gone.outcome === 'invalid' && gone.error.message).toBe(`Invalid policy in ${file}: file not found`);
  });
});
