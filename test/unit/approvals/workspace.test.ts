import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { outsideWorkspace } from '../../../src/approvals/workspace.js';

describe('the workspace rule', () => {
  const workspace = { teamId: 'T0HOME' };

  it('admits members, refuses other teams and a blank team, and leaves code that names no team to vouch for itself', () => {
    expect(outsideWorkspace({ teamId: 'T0HOME' }, workspace)).toBe(false);
    expect(outsideWorkspace({ teamId: 'T0OTHER' }, workspace)).toBe(true);
    expect(outsideWorkspace({ teamId: '' }, workspace)).toBe(true);
    expect(outsideWorkspace({ teamId: '  ' }, workspace)).toBe(true);
    expect(outsideWorkspace({ teamId: 42 as unknown as string }, workspace)).toBe(true);
    expect(outsideWorkspace({}, workspace)).toBe(false);
    // A runtime no front end declared a workspace for has nobody outside it.
    expect(outsideWorkspace({ teamId: 'T0OTHER' }, undefined)).toBe(false);
  });

  it('admits teams the policy trusts, and an Enterprise Grid organisation\'s members', () => {
    expect(outsideWorkspace({ teamId: 'T0PARTNER' }, workspace, ['T0PARTNER'])).toBe(false);
    const grid = { teamId: 'T0HOME', enterpriseId: 'E0ORG' };
    expect(outsideWorkspace({ teamId: 'E0ORG' }, grid)).toBe(false);
    expect(outsideWorkspace({ teamId: 'T0SIB', enterpriseId: 'E0ORG' }, grid)).toBe(false);
    expect(outsideWorkspace({ teamId: 'T0SIB' }, grid)).toBe(true);
    // An organisation id means nothing to a workspace that is not in one.
    expect(outsideWorkspace({ teamId: 'T0SIB', enterpriseId: 'E0ORG' }, workspace)).toBe(true);
  });

  it('takes allowExternalTeams from the policy: checked ids, sorted, part of the version only when set', () => {
    const without = definePolicy({});
    const withTeams = definePolicy({ allowExternalTeams: ['T0B', 'E0A', 'T0B'] });
    expect(withTeams.allowExternalTeams).toEqual(['E0A', 'T0B']);
    expect(without.allowExternalTeams).toBeUndefined();
    expect(withTeams.version).not.toBe(without.version);
    expect(definePolicy({ allowExternalTeams: ['T0B', 'E0A'] }).version).toBe(withTeams.version);
    expect(() => definePolicy({ allowExternalTeams: ['U0ALICE'] })).toThrow(/allowExternalTeams.*team id/);
  });
});
