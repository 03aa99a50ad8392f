import { describe, expect, it, vi } from 'vitest';
import { authorizeActor } from '../../../src/approvals/authorize-actor.js';
import type { Requirement } from '../../../src/approvals/requirement-for.js';

function requirement(overrides: Partial<Requirement> = {}): Requirement {
  return {
    requireApproval: true,
    approvers: [],
    allowSelfApproval: true,
    quorum: 1,
    expiresInMs: 60_000,
    policyVersion: 'v@0123456789abcdef',
    reach: { notify: 'mentions', route: 'thread', dmLimit: 10, remindLimit: 3, warnBeforeMs: 6000, escalateTo: [] },
    risk: 'low',
    requireReason: false,
    ...overrides,
  };
}

const BOT = 'U0BOT';

describe('authorizeActor', () => {
  it('lets anyone but the bot approve when no approvers are listed', async () => {
    expect(await authorizeActor({ requirement: requirement(), actor: { userId: 'U0ANY' }, botUserId: BOT })).toEqual({
      allowed: true,
    });
  });

  it.each(['', '   '])('refuses an unidentified actor (%j)', async (userId) => {
    const result = await authorizeActor({ requirement: requirement(), actor: { userId } });
    expect(result).toMatchObject({ allowed: false, why: 'unknown-actor' });
  });

  it('refuses the bot, even when it is listed as an approver', async () => {
    const result = await authorizeActor({
      requirement: requirement({ approvers: [BOT] }),
      actor: { userId: BOT },
      botUserId: BOT,
      toolName: 'issue_refund',
    });
    expect(result).toEqual({ allowed: false, why: 'bot', message: 'The bot cannot approve issue_refund.' });
  });

  it('refuses self-approval only when the policy forbids it', async () => {
    const forbidden = await authorizeActor({
      requirement: requirement({ allowSelfApproval: false, approvers: ['U0ALICE'] }),
      actor: { userId: 'U0ALICE' },
      requester: 'U0ALICE',
      toolName: 'issue_refund',
    });
    expect(forbidden).toMatchObject({ allowed: false, why: 'self-approval' });
    if (!forbidden.allowed) expect(forbidden.message).toMatch(/someone else has to approve issue_refund/);

    const allowed = await authorizeActor({
      requirement: requirement({ allowSelfApproval: true }),
      actor: { userId: 'U0ALICE' },
      requester: 'U0ALICE',
    });
    expect(allowed).toEqual({ allowed: true });

    const otherPerson = await authorizeActor({
      requirement: requirement({ allowSelfApproval: false }),
      actor: { userId: 'U0BOB' },
      requester: 'U0ALICE',
    });
    expect(otherPerson).toEqual({ allowed: true });
  });

  it('allows a listed user and refuses an unlisted one, in plain text', async () => {
    const req = requirement({ approvers: ['U0ALICE', 'W0BOB'] });
    expect(await authorizeActor({ requirement: req, actor: { userId: 'W0BOB' } })).toEqual({ allowed: true });
    const refused = await authorizeActor({ requirement: req, actor: { userId: 'U0EVE' }, toolName: 'issue_refund' });
    expect(refused).toEqual({
      allowed: false,
      why: 'not-an-approver',
      message: 'Only listed approvers can approve issue_refund.',
    });
    const generic = await authorizeActor({ requirement: req, actor: { userId: 'U0EVE' } });
    expect(generic).toMatchObject({ message: 'Only listed approvers can approve this request.' });
  });

  it('uses actor.groups when given, without asking the resolver', async () => {
    const resolve = vi.fn(async () => ['U0EVE']);
    const req = requirement({ approvers: ['S0FINANCE'] });
    expect(
      await authorizeActor({ requirement: req, actor: { userId: 'U0ALICE', groups: ['S0FINANCE'] }, resolveGroupMembers: resolve }),
    ).toEqual({ allowed: true });
    expect(
      await authorizeActor({ requirement: req, actor: { userId: 'U0EVE', groups: ['S0OTHER'] }, resolveGroupMembers: resolve }),
    ).toMatchObject({ allowed: false, why: 'not-an-approver' });
    expect(resolve).not.toHaveBeenCalled();
  });

  it('asks the resolver about each listed group otherwise', async () => {
    const members: Record<string, string[]> = { S0FINANCE: ['U0ALICE'], S0OPS: ['U0BOB'] };
    const resolve = vi.fn(async (groupId: string) => members[groupId] ?? []);
    const req = requirement({ approvers: ['S0FINANCE', 'S0OPS', 'U0CAROL'] });

    expect(await authorizeActor({ requirement: req, actor: { userId: 'U0BOB' }, resolveGroupMembers: resolve })).toEqual({
      allowed: true,
    });
    expect(resolve.mock.calls.map(([g]) => g).sort()).toEqual(['S0FINANCE', 'S0OPS']);

    resolve.mockClear();
    expect(await authorizeActor({ requirement: req, actor: { userId: 'U0CAROL' }, resolveGroupMembers: resolve })).toEqual({
      allowed: true,
    });
    expect(resolve).not.toHaveBeenCalled();

    expect(
      await authorizeActor({ requirement: req, actor: { userId: 'U0EVE' }, resolveGroupMembers: resolve }),
    ).toMatchObject({ allowed: false, why: 'not-an-approver' });
  });

  it('refuses group-only approval when membership cannot be checked', async () => {
    const result = await authorizeActor({ requirement: requirement({ approvers: ['S0FINANCE'] }), actor: { userId: 'U0ALICE' } });
    expect(result).toMatchObject({ allowed: false, why: 'not-an-approver' });
  });

  it('still allows through another group when one lookup fails', async () => {
    const resolve = vi.fn(async (groupId: string) => {
      if (groupId === 'S0BROKEN') throw new Error('ratelimited');
      return ['U0ALICE'];
    });
    const req = requirement({ approvers: ['S0BROKEN', 'S0FINANCE'] });
    expect(await authorizeActor({ requirement: req, actor: { userId: 'U0ALICE' }, resolveGroupMembers: resolve })).toEqual({
      allowed: true,
    });
  });

  it('throws, rather than refusing, when a failed lookup leaves the answer unknown', async () => {
    const cause = new Error('ratelimited');
    const resolve = vi.fn(async () => {
      throw cause;
    });
    const attempt = authorizeActor({
      requirement: requirement({ approvers: ['S0FINANCE'] }),
      actor: { userId: 'U0ALICE' },
      resolveGroupMembers: resolve,
    });
    await expect(attempt).rejects.toThrow(/S0FINANCE/);
    await expect(attempt).rejects.toMatchObject({ cause });
  });

  it('checks the bot and self-approval before anything else', async () => {
    const resolve = vi.fn(async () => ['U0ALICE']);
    const result = await authorizeActor({
      requirement: requirement({ approvers: ['S0FINANCE'], allowSelfApproval: false }),
      actor: { userId: 'U0ALICE' },
      requester: 'U0ALICE',
      resolveGroupMembers: resolve,
    });
    expect(result).toMatchObject({ allowed: false, why: 'self-approval' });
    expect(resolve).not.toHaveBeenCalled();
  });
});
