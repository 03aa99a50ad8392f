/**
 * The routing fallback in a private channel, over the real Slack front end and the Slack
 * simulator (G… ids are private there; conversations.members from its channelMembers): when no
 * member but the requester (who may not approve) and the bot may approve, the card goes to the
 * approvers by DM and the requester is told; with an approver among the members it stays in the
 * thread; a public channel costs one conversations.info now and then, and no members call.
 */
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { SLACK_IDS, type RecordedCall } from '../../src/simulator/index.js';
import { blocksOf, cardActions, clickButton, mention, recordingDeleteTool, slackHarness, startBot, waitForCard, waitForText, waitForUpdate, type PostedCard } from '../helpers/slack-bot.js';
import { startDeleteBot } from '../helpers/start-delete-bot.js';
import { REQUESTER, ALICE, BOB } from '../helpers/test-workspace.js';

const FINANCE = 'S0FINANCE';
/** Private, with nobody in it who may approve. */
const SECRET = 'G0SECRET';
/** Private, with bob (a finance member) in it. */
const WITH_BOB = 'G0WITHBOB';
const PUBLIC = 'C0PUBLIC';

describeOnOneBackend('the routing fallback in a private channel, on %s', (backend) => {
  const h = slackHarness(backend, {
    channelMembers: { [SECRET]: [REQUESTER, 'U0BYSTANDER', SLACK_IDS.botUserId], [WITH_BOB]: [REQUESTER, BOB, SLACK_IDS.botUserId] },
    usergroups: { [FINANCE]: [BOB] },
  });

  async function boot(policy: PolicyInput) {
    const tool = recordingDeleteTool();
    h.bot = await startDeleteBot(h, policy, { tool });
    return tool;
  }

  async function copyIn(channel: string): Promise<PostedCard> {
    const isCard = (c: RecordedCall) => c.method === 'chat.postMessage' && c.ok && c.args.channel === channel && cardActions(blocksOf(c), 'approval') !== undefined;
    const call = await h.fake.waitFor(isCard);
    const actions = cardActions(blocksOf(call), 'approval')!;
    const ts = String(call.response?.ts);
    return { call, actionId: Number(String(actions.block_id).split(':')[1]), ts, channel, threadTs: ts, blocks: blocksOf(call) };
  }

  const outboxNotes = () => h.fake.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes(':outbox_tray:'));

  it('nobody in it may approve: the card goes to the approvers by DM, the requester is told, and a copy decides it', async () => {
    const tool = await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE, REQUESTER], allowSelfApproval: false } } });
    const thread = await mention(h.bot!, { user: REQUESTER, channel: SECRET, text: 'delete abc' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const told = await waitForText(h.fake, { channel: SECRET, threadTs: thread.threadTs }, ':outbox_tray:');
    expect(told.args.text).toBe(`:outbox_tray: Nobody in this conversation can approve this, so I sent it to <@${ALICE}> by DM. I will post the outcome here.`);
    expect(h.fake.callsTo('conversations.info').map((c) => c.args.channel)).toEqual([SECRET]);
    expect(h.fake.callsTo('conversations.members').map((c) => c.args.channel)).toEqual([SECRET]);
    expect(h.fake.callsTo('conversations.open').map((c) => c.args.users)).toEqual([ALICE]);

    const copy = await copyIn('D0ALICE');
    expect(copy.actionId).toBe(card.actionId);
    await clickButton(h.bot!, copy, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, { channel: SECRET, threadTs: thread.threadTs }, 'finished');
    expect(tool.deleted).toEqual([{ id: 'abc' }]);
  });

  it('an approver is a member (through a user group): the card stays in the thread and nothing is sent', async () => {
    await boot({ tools: { delete_record: { requireApproval: true, approvers: [FINANCE, REQUESTER], allowSelfApproval: false } } });
    const thread = await mention(h.bot!, { user: REQUESTER, channel: WITH_BOB, text: 'delete abc' });
    await waitForCard(h.fake, thread, 'approval');
    await h.bot!.slack.idle();
    expect(h.fake.callsTo('conversations.members').map((c) => c.args.channel)).toEqual([WITH_BOB]);
    expect(h.fake.callsTo('conversations.open')).toHaveLength(0);
    expect(outboxNotes()).toHaveLength(0);
  });

  it('the same approvers in a channel without them go by DM to the group’s members', async () => {
    await boot({ tools: { delete_record: { requireApproval: true, approvers: [FINANCE], allowSelfApproval: false } } });
    const thread = await mention(h.bot!, { user: REQUESTER, channel: SECRET, text: 'delete abc' });
    await waitForCard(h.fake, thread, 'approval');
    await copyIn('D0BOB');
    const told = await waitForText(h.fake, { channel: SECRET, threadTs: thread.threadTs }, ':outbox_tray:');
    expect(String(told.args.text)).toContain(`sent it to <!subteam^${FINANCE}> by DM`);
  });

  it('a public channel: one conversations.info tells it apart (an app_mention carries no channel type) and is remembered; no members call, the card stays', async () => {
    const tool = recordingDeleteTool();
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps) =>
        new Agent({
          id: 'ops',
          instructions: 'test',
          model: scriptedModel([
            { toolCalls: [{ toolName: 'delete_record', args: { id: 'abc' } }] },
            { toolCalls: [{ toolName: 'delete_record', args: { id: 'def' } }] },
          ]),
          tools: { delete_record: tool.deleteRecord },
          storage: h.database,
          policy: definePolicy({ tools: { delete_record: { requireApproval: true, approvers: [ALICE], allowSelfApproval: false } } }),
          ...deps,
        }),
    });
    for (const text of ['delete abc', 'delete def']) {
      const thread = await mention(h.bot, { user: REQUESTER, channel: PUBLIC, text });
      await waitForCard(h.fake, thread, 'approval');
    }
    await h.bot.slack.idle();
    expect(h.fake.callsTo('conversations.info').map((c) => c.args.channel)).toEqual([PUBLIC]);
    expect(h.fake.callsTo('conversations.members')).toHaveLength(0);
    expect(h.fake.callsTo('conversations.open')).toHaveLength(0);
    expect(outboxNotes()).toHaveLength(0);
  });

  it('a requester who may approve makes no extra call, even in a private channel', async () => {
    await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE, REQUESTER] } } });
    const thread = await mention(h.bot!, { user: REQUESTER, channel: SECRET, text: 'delete abc' });
    await waitForCard(h.fake, thread, 'approval');
    await h.bot!.slack.idle();
    expect(h.fake.callsTo('conversations.info')).toHaveLength(0);
    expect(h.fake.callsTo('conversations.members')).toHaveLength(0);
    expect(outboxNotes()).toHaveLength(0);
  });

  it('missing_scope from conversations.info (a public channel without channels:read) means not private, quietly', async () => {
    await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE], allowSelfApproval: false } } });
    // Without channels:read, Slack refuses conversations.info for a public channel: that means "not private", quietly.
    h.fake.failNext('conversations.info', { error: 'missing_scope' });
    const inPublic = await mention(h.bot!, { user: REQUESTER, channel: PUBLIC, text: 'delete abc' });
    await waitForCard(h.fake, inPublic, 'approval');
    await h.bot!.slack.idle();
    expect(h.bot!.logs.join('\n')).not.toContain('could not tell whether anyone in the channel may approve');
    expect(outboxNotes()).toHaveLength(0);
  });

  it('when the members cannot be read, the card stays in the private channel and the failure is logged', async () => {
    await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE], allowSelfApproval: false } } });
    h.fake.failNext('conversations.members', { error: 'internal_error' });
    const inPrivate = await mention(h.bot!, { user: REQUESTER, channel: SECRET, text: 'delete abc' });
    await waitForCard(h.fake, inPrivate, 'approval');
    await h.bot!.slack.idle();
    expect(h.bot!.logs.join('\n')).toContain('could not tell whether anyone in the channel may approve');
    expect(h.fake.callsTo('conversations.open')).toHaveLength(0);
    expect(outboxNotes()).toHaveLength(0);
  });
});
