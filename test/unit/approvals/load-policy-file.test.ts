import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { loadPolicyFile } from '../../../src/approvals/load-policy-file.js';
import { thrownPolicyError } from '../../helpers/policy-errors.js';

const dir = mkdtempSync(join(tmpdir(), 'approvals-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The PolicyError loadPolicyFile must throw for the file at `path`. */
const loadError = (path: string) => thrownPolicyError('loadPolicyFile', () => loadPolicyFile(path));

const YAML_POLICY = `
# Refunds need finance; large ones need two people.
version: prod
defaults:
  expiresIn: 24h
tools:
  issue_refund:
    requireApproval: true
    approvers: [S0FINANCE, U0ALICE]
    allowSelfApproval: false
    rules:
      - when: { arg: amountCents, op: gt, value: 100000 }
        then: { quorum: 2, expiresIn: 1h }
`;

const SAME_POLICY_AS_JSON = JSON.stringify({
  version: 'prod',
  tools: {
    issue_refund: {
      rules: [{ when: { op: 'gt', arg: 'amountCents', value: 100000 }, then: { expiresIn: 3600, quorum: 2 } }],
      allowSelfApproval: false,
      approvers: ['U0ALICE', 'S0FINANCE'],
      requireApproval: true,
    },
  },
  defaults: { expiresIn: 86400 },
});

describe('loadPolicyFile', () => {
  it('reads YAML (.yaml and .yml) and JSON into the same policy', () => {
    const fromYaml = loadPolicyFile(file('policy.yaml', YAML_POLICY));
    const fromYml = loadPolicyFile(file('policy.yml', YAML_POLICY));
    const fromJson = loadPolicyFile(file('policy.json', SAME_POLICY_AS_JSON));

    expect(fromYaml.version).toMatch(/^prod@[0-9a-f]{16}$/);
    expect(fromYml).toEqual(fromYaml);
    expect(fromJson).toEqual(fromYaml);
    expect(fromYaml.tools.issue_refund?.rules[0]?.then).toEqual({ quorum: 2, expiresInMs: 3_600_000 });
    expect(fromYaml).toEqual(definePolicy(JSON.parse(SAME_POLICY_AS_JSON)));
  });

  it('reports validation problems with the file and the field', () => {
    const path = file('bad-field.yaml', 'tools:\n  issue_refund:\n    quorum: 0\n');
    const error = loadError(path);
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.field).toBe('tools.issue_refund.quorum');
    expect(error.file).toBe(path);
    expect(error.message).toBe(`Invalid policy in ${path}: tools.issue_refund.quorum must be a whole number of at least 1`);
  });

  it('rejects unknown fields in a file', () => {
    const error = loadError(file('unknown.json', '{"tools": {"t": {"requireApproval": true, "quorom": 2}}}'));
    expect(error.field).toBe('tools.t.quorom');
    expect(error.message).toMatch(/tools\.t\.quorom is not a known field/);
  });

  it('does not read YAML 1.1 booleans like "yes" as true', () => {
    const error = loadError(file('yes.yaml', 'defaults:\n  requireApproval: yes\n'));
    expect(error.field).toBe('defaults.requireApproval');
  });

  it('reports a missing file with its path', () => {
    const path = join(dir, 'missing.yaml');
    const error = loadError(path);
    expect(error.field).toBe('');
    expect(error.message).toBe(`Invalid policy in ${path}: file not found`);
  });

  it('reports YAML syntax errors with the path', () => {
    const path = file('broken.yaml', 'tools:\n  issue_refund: [unclosed\n');
    const error = loadError(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/YAML syntax error/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('reports duplicate YAML keys instead of letting the last one win', () => {
    const path = file('duplicate.yaml', 'tools:\n  t:\n    quorum: 2\n    quorum: 1\n');
    expect(loadError(path).message).toMatch(/YAML syntax error/);
  });

  it('reports JSON syntax errors with the path', () => {
    const path = file('broken.json', '{"tools": {,}}');
    const error = loadError(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/JSON syntax error/);
  });

  it('rejects an empty file', () => {
    const path = file('empty.yaml', '# nothing here yet\n');
    expect(loadError(path).message).toMatch(/file is empty/);
  });

  it('rejects other file types', () => {
    const path = file('policy.toml', '[tools]\n');
    const error = loadError(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/unsupported file type "\.toml"/);
  });
});
