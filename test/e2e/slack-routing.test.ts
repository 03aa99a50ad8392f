/**
 * Routing a request to its approvers over the real Slack front end and the Slack simulator: a
 * copy in an approvals channel, copies by DM to a group's members (up to dmLimit), and the DM
 * fallback when the requester asks in a DM and may not approve. Copies are the same request:
 * deciding on one redraws every copy and the thread, and the run goes on in the thread.
 */
import { expect, it } from 'vitest';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { messageEnvelope, type RecordedCall } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { blocksOf, cardActions, clickButton, freshTs, mention, recordingDeleteTool, slackHarness, waitForCard, waitForText, waitForUpdate, type PostedCard } from '../helpers/slack-bot.js';
import { startDeleteBot } from '../helpers/start-delete-bot.js';
import { CHANNEL, REQUESTER, ALICE, BOB } from '../helpers/test-workspace.js';

const APPROVALS = 'C0APPROVALS';

describeOnOneBackend('routing requests to the approvers, on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(policy: PolicyInput) {
    const tool = recordingDeleteTool();
    h.bot = await startDeleteBot(h, policy, { tool });
    return tool;
  }

  /** The card the bot posted in `channel` (top level or a thread), as something to click. */
  async function cardIn(channel: string, threadTs?: string): Promise<PostedCard> {
    const isCard = (c: RecordedCall) => c.method === 'chat.postMessage' && c.ok && c.args.channel === channel && cardActions(blocksOf(c), 'approval') !== undefined;
    const call = await h.fake.waitFor(isCard);
    const actions = cardActions(blocksOf(call), 'approval')!;
    return {
      call,
      actionId: Number(String(actions.block_id).split(':')[1]),
      ts: String(call.response?.ts),
      channel,
      threadTs: threadTs ?? String(call.response?.ts),
      blocks: blocksOf(call),
    };
  }

  it('route: channel posts a copy to the approvals channel; approving the copy redraws both and the run goes on in the thread', async () => {
    const tool = await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE], route: { channel: APPROVALS } } } });
    const thread = await mention(h.bot!, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const copy = await cardIn(APPROVALS);
    expect(copy.actionId).toBe(card.actionId);
    expect(copy.call.args.thread_ts).toBeUndefined();
    expect(copy.call.args.text).toContain(`for <@${ALICE}>`);
    expect(JSON.stringify(card.blocks)).toContain(`*Sent to:* <#${APPROVALS}>`);
    const note = await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, ':outbox_tray:');
    expect(String(note.args.text)).toMatch(
      new RegExp(`^:outbox_tray: Waiting for <@${ALICE}> in <#${APPROVALS}> \\(<https://[^|>]+/archives/${APPROVALS}/p\\d+\\|open the request>\\)\\.$`),
    );

    await clickButton(h.bot!, copy, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForUpdate(h.fake, copy, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, 'finished');
    expect(tool.deleted).toEqual([{ id: 'abc' }]);
    // One decision: a second click on the thread's card finds it decided.
    await clickButton(h.bot!, card, ALICE, ACTION_IDS.approve);
    await h.bot!.slack.idle();
    expect(tool.deleted).toHaveLength(1);
  });

  it('route: dm sends a copy to each member of the group, up to dmLimit, never the requester who may not approve', async () => {
    h.fake.setUsergroup('S0FINANCE', [REQUESTER, ALICE, BOB, 'U0CAROL']);
    await boot({ tools: { delete_record: { requireApproval: true, approvers: ['S0FINANCE'], allowSelfApproval: false, route: 'dm', dmLimit: 2 } } });
    const thread = await mention(h.bot!, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const note = await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, ':outbox_tray:');
    expect(note.args.text).toBe(':outbox_tray: Waiting for <!subteam^S0FINANCE> by DM.');
    const opened = h.fake.callsTo('conversations.open').map((c) => c.args.users);
    expect(opened).toEqual([ALICE, BOB]);
    const copies = h.fake.callsTo('chat.postMessage').filter((c) => String(c.args.channel).startsWith('D') && cardActions(blocksOf(c), 'approval'));
    expect(copies.map((c) => c.args.channel)).toEqual(['D0ALICE', 'D0BOB']);
    expect(JSON.stringify(card.blocks)).toContain('*Sent to:* the approvers by DM');

    const bobs = await cardIn('D0BOB');
    await clickButton(h.bot!, bobs, BOB, ACTION_IDS.decline);
    // Declining opens the reason modal; any redraw after it covers all copies, checked in the other tests.
    await h.fake.waitFor('views.open');
  });

  it('a request made in a DM by someone who may not approve goes to the approvers by DM, and the requester is told', async () => {
    const DM = 'D0REQUESTER';
    const tool = await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE, REQUESTER], allowSelfApproval: false, quorum: 1 } } });
    await h.bot!.send.event(messageEnvelope({ channel: DM, ts: freshTs(), user: REQUESTER, text: 'delete abc' }));
    const card = await cardIn(DM);
    const told = await waitForText(h.fake, { channel: DM }, ':outbox_tray:');
    expect(told.args.text).toBe(
      `:outbox_tray: Nobody in this conversation can approve this, so I sent it to <@${ALICE}> by DM. I will post the outcome here.`,
    );
    expect(h.fake.callsTo('conversations.open').map((c) => c.args.users)).toEqual([ALICE]);
    const copy = await cardIn('D0ALICE');
    expect(copy.actionId).toBe(card.actionId);

    await clickButton(h.bot!, copy, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, copy, `Approved by <@${ALICE}>`);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, { channel: DM }, 'finished');
    expect(tool.deleted).toEqual([{ id: 'abc' }]);
  });

  it('in a DM, "anyone but the requester" names nobody to route to: the requester is told the card waits unseen', async () => {
    // A DM of its own: the request stays waiting there.
    const DM = 'D0REQUESTER2';
    await boot({ tools: { delete_record: { requireApproval: true, allowSelfApproval: false } } });
    await h.bot!.send.event(messageEnvelope({ channel: DM, ts: freshTs(), user: REQUESTER, text: 'delete abc' }));
    await cardIn(DM);
    const told = await waitForText(h.fake, { channel: DM }, ':warning: Only you can see this card here');
    expect(told.args.text).toContain('give this tool `approvers` or a `route`');
    expect(h.fake.callsTo('conversations.open')).toHaveLength(0);
  });

  it('a DM requester who may approve keeps the card to themselves: nothing is routed', async () => {
    const DM = 'D0REQUESTER';
    await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE, REQUESTER] } } });
    await h.bot!.send.event(messageEnvelope({ channel: DM, ts: freshTs(), user: REQUESTER, text: 'delete abc' }));
    await cardIn(DM);
    await h.bot!.slack.idle();
    expect(h.fake.callsTo('conversations.open')).toHaveLength(0);
    expect(h.fake.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes(':outbox_tray:'))).toHaveLength(0);
  });

  it('quorum progress reaches the DM copies too', async () => {
    await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE, BOB, 'U0CAROL'], quorum: 2, route: 'dm' } } });
    const thread = await mention(h.bot!, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    await waitForCard(h.fake, thread, 'approval');
    const alices = await cardIn('D0ALICE');
    await cardIn('D0CAROL');
    await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, ':outbox_tray:');
    await clickButton(h.bot!, alices, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, '1 of 2:');
    const inDm = await waitForText(h.fake, { channel: 'D0CAROL' }, '1 of 2:');
    expect(inDm.args.text).toContain(`one more needed from <@${BOB}> or <@U0CAROL>`);
  });
});
