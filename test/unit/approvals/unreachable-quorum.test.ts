import { describe, expect, it } from 'vitest';
import { unreachableQuorum } from '../../../src/approvals/unreachable-quorum.js';

const groups: Record<string, string[]> = { S0LEADS: ['U0A1', 'U0LEAD'], S0EMPTY: [] };

describe('unreachableQuorum', () => {
  it('is undefined when anyone may approve or the listed users are enough', async () => {
    expect(await unreachableQuorum({ approvers: [], allowSelfApproval: true, quorum: 5 })).toBeUndefined();
    expect(await unreachableQuorum({ approvers: ['U0A1', 'U0A2'], allowSelfApproval: true, quorum: 2 })).toBeUndefined();
  });

  it('counts the listed users, without the bot and, without self-approval, the requester', async () => {
    expect(await unreachableQuorum({ approvers: ['U0A1', 'U0A2'], allowSelfApproval: true, quorum: 3 })).toEqual({ eligible: 2 });
    expect(await unreachableQuorum({ approvers: ['U0A1', 'U0A2'], allowSelfApproval: false, quorum: 2, requester: 'U0A1' })).toEqual({ eligible: 1 });
    expect(await unreachableQuorum({ approvers: ['U0A1', 'U0A2'], allowSelfApproval: true, quorum: 2, requester: 'U0A1' })).toBeUndefined();
    expect(await unreachableQuorum({ approvers: ['U0A1', 'U0BOT'], allowSelfApproval: true, quorum: 2, botUserId: 'U0BOT' })).toEqual({ eligible: 1 });
  });

  it('counts the members of listed groups as they are now, each person once', async () => {
    const resolveGroupMembers = async (id: string) => groups[id] ?? [];
    expect(await unreachableQuorum({ approvers: ['U0A1', 'S0LEADS'], allowSelfApproval: true, quorum: 3, resolveGroupMembers })).toEqual({ eligible: 2 });
    expect(await unreachableQuorum({ approvers: ['S0EMPTY'], allowSelfApproval: true, quorum: 1, resolveGroupMembers })).toEqual({ eligible: 0 });
    expect(await unreachableQuorum({ approvers: ['U0A2', 'S0LEADS'], allowSelfApproval: true, quorum: 3, resolveGroupMembers })).toBeUndefined();
    expect(
      await unreachableQuorum({ approvers: ['S0LEADS'], allowSelfApproval: false, quorum: 2, requester: 'U0LEAD', resolveGroupMembers }),
    ).toEqual({ eligible: 1 });
  });

  it('looks groups up only when the listed users fall short', async () => {
    const asked: string[] = [];
    const resolveGroupMembers = async (id: string) => {
      asked.push(id);
      return groups[id] ?? [];
    };
    expect(await unreachableQuorum({ approvers: ['U0A1', 'S0LEADS'], allowSelfApproval: true, quorum: 1, resolveGroupMembers })).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('says nothing when it cannot tell: a group without a resolver, or a lookup that fails', async () => {
    expect(await unreachableQuorum({ approvers: ['S0LEADS'], allowSelfApproval: true, quorum: 9 })).toBeUndefined();
    const failing = async () => {
      throw new Error('ratelimited');
    };
    expect(await unreachableQuorum({ approvers: ['S0LEADS'], allowSelfApproval: true, quorum: 9, resolveGroupMembers: failing })).toBeUndefined();
  });
});
