import { afterAll, beforeAll, expect, it } from 'vitest';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PendingAction } from '../../src/db/rows.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';

const REQUESTER = 'U0REQ';
const ALICE = 'U0ALICE';
const CAROL = 'U0CAROL';
const BOSS = 'U0BOSS';
const MALLORY = 'U0MALLORY';
const BOT = 'U0BOT';
const GROUP = 'S0OPS';
const BROKEN = 'S0BROKEN';

// Small deletes: Alice or the ops group; large ones: only the boss; anything of the archive: a group that cannot be read.
const policy = definePolicy({
  tools: {
    delete_record: {
      requireApproval: true,
      approvers: [ALICE, GROUP],
      allowSelfApproval: false,
      rules: [
        { when: { arg: 'rows', op: 'gt', value: 100 }, then: { approvers: [BOSS] } },
        { when: { arg: 'table', op: 'eq', value: 'archive' }, then: { approvers: [BROKEN] } },
      ],
    },
  },
});

describeBackends('who may see a request (Agent.maySee) on %s', (backend) => {
  let database: TestDatabase;
  let request: PendingAction;
  let agent: ReturnType<typeof agentWith>;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const { tool } = countingTool('delete_record', { requireApproval: true });
    agent = agentWith({
      model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'r1' } }] }]),
      tools: { delete_record: tool },
      storage: database,
      policy,
      botUserId: BOT,
      resolveGroupMembers: async (group) => {
        if (group === GROUP) return [CAROL];
        throw new Error('usergroups.users.list failed');
      },
    });
    const stream = await agent.stream('delete', { requester: REQUESTER });
    const paused = (await stream.suspendPayload)!;
    request = (await agent.findRequest((await agent.latestApprovalId(stream.runId, paused.toolCallId))!))!;
  });
  afterAll(async () => {
    await database?.close();
  });

  const sees = (row: Partial<PendingAction>, user: string) => agent.maySee({ ...request, ...row }, { userId: user });

  it('its requester, and whoever may decide it under the current policy (listed users, group members)', async () => {
    expect(await sees({}, REQUESTER)).toBe(true);
    expect(await sees({}, ALICE)).toBe(true);
    expect(await sees({}, CAROL)).toBe(true);
    expect(await sees({}, BOSS)).toBe(false);
    expect(await sees({}, MALLORY)).toBe(false);
  });

  it('follows the policy as it applies to the arguments, in any status, and keeps those who decided or voted', async () => {
    expect(await sees({ args: { rows: 500 } }, ALICE)).toBe(false);
    expect(await sees({ args: { rows: 500 } }, BOSS)).toBe(true);
    expect(await sees({ status: 'approved', decided_by: ALICE }, CAROL)).toBe(true);
    expect(await sees({ status: 'approved', decided_by: MALLORY }, MALLORY)).toBe(true);
    expect(await sees({ args: { rows: 500 }, approvals: [{ userId: ALICE, at: new Date().toISOString() }] } as Partial<PendingAction>, ALICE)).toBe(true);
  });

  it('nobody else: the bot, an empty actor, another agent’s request, a question of someone else’s run, and when a group cannot be read', async () => {
    expect(await sees({}, BOT)).toBe(false);
    // Not even a request made in its name, or one it is on record as having decided.
    expect(await sees({ requester: BOT }, BOT)).toBe(false);
    expect(await sees({ status: 'approved', decided_by: BOT }, BOT)).toBe(false);
    expect(await sees({}, '')).toBe(false);
    expect(await sees({ path: ['other-agent'] }, ALICE)).toBe(false);
    expect(await sees({ path: ['other-agent'] }, REQUESTER)).toBe(false);
    expect(await sees({ kind: 'suspension' }, ALICE)).toBe(false);
    expect(await sees({ kind: 'suspension' }, REQUESTER)).toBe(true);
    expect(await sees({ args: { table: 'archive' } }, CAROL)).toBe(false);
  });
});
