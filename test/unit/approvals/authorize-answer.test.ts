import { describe, expect, it } from 'vitest';
import { authorizeAnswer } from '../../../src/approvals/authorize-answer.js';

const BOT = 'U0BOT';
const REQUESTER = 'U0REQ';

describe('authorizeAnswer', () => {
  it('lets the requester and the tool’s approvers (listed, or through a group) answer, and nobody else', async () => {
    const input = { requester: REQUESTER, approvers: ['U0ALICE', 'S0OPS'], botUserId: BOT, resolveGroupMembers: async () => ['U0CAROL'], toolName: 'deploy' };
    expect(await authorizeAnswer({ ...input, actor: { userId: REQUESTER } })).toEqual({ allowed: true });
    expect(await authorizeAnswer({ ...input, actor: { userId: 'U0ALICE' } })).toEqual({ allowed: true });
    expect(await authorizeAnswer({ ...input, actor: { userId: 'U0CAROL' } })).toEqual({ allowed: true });
    expect(await authorizeAnswer({ ...input, actor: { userId: 'U0MALLORY' } })).toEqual({
      allowed: false,
      why: 'not-the-requester',
      message: 'Only the person who started this run, or an approver of deploy, can answer it.',
    });
  });

  it('never lets the bot answer, not even a run nobody started or one it is listed for', async () => {
    expect(await authorizeAnswer({ actor: { userId: BOT }, approvers: [], botUserId: BOT })).toMatchObject({ allowed: false, why: 'bot' });
    expect(await authorizeAnswer({ actor: { userId: BOT }, requester: BOT, approvers: [BOT], botUserId: BOT })).toMatchObject({ allowed: false, why: 'bot' });
    expect(await authorizeAnswer({ actor: { userId: 'U0ANY' }, approvers: [], botUserId: BOT })).toEqual({ allowed: true });
  });

  it.each(['', '   '])('refuses an unidentified actor (%j)', async (userId) => {
    expect(await authorizeAnswer({ actor: { userId }, approvers: [] })).toMatchObject({ allowed: false, why: 'unknown-actor' });
  });

  it('an empty approver list does not open answering to everyone: the answer is the requester’s', async () => {
    expect(await authorizeAnswer({ actor: { userId: 'U0ANY' }, requester: REQUESTER, approvers: [] })).toMatchObject({ allowed: false, why: 'not-the-requester' });
  });
});
