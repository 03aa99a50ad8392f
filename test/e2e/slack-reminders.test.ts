/**
 * Reminders, the last warning, escalation and expiry over the real Slack front end and the
 * Slack simulator, with two instances sweeping the same database and one of them restarted:
 * each notice goes out exactly once, and an escalated approver can decide.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { describeOnOneBackend, twoConnections } from '../helpers/needs.js';
import { underAHolder } from '../helpers/row-locks.js';
import { ageRequest } from '../helpers/age-records.js';
import { showDueNotices } from '../../src/slack/routing/send-due-notices.js';
import type { RecordedCall } from '../../src/simulator/index.js';
import { clickButton, mention, recordingDeleteTool, slackHarness, waitForCard, waitForText, waitForUpdate, type Bot } from '../helpers/slack-bot.js';
import { startDeleteBot } from '../helpers/start-delete-bot.js';
import { CHANNEL, REQUESTER, ALICE } from '../helpers/test-workspace.js';

const BOSS = 'U0BOSS';

describeOnOneBackend('reminders, warning, escalation and expiry, on %s', (backend) => {
  const h = slackHarness(backend);
  const others: Bot[] = [];

  // Each test's agent has its own id: requests an earlier test left waiting are not swept under this test's policy.
  let agentId = 'ops';
  beforeEach(() => {
    agentId = `ops-${expect.getState().currentTestName?.length ?? 0}-${Math.random().toString(36).slice(2, 8)}`;
  });

  const instance = (policy: PolicyInput, tool?: ReturnType<typeof recordingDeleteTool>): Promise<Bot> => startDeleteBot(h, policy, { tool, agentId });

  /** The thread's approval card once `bot` has stored where it is: a notice goes under the card on record, and none without one. */
  async function storedCard(bot: Bot, thread: { channel: string; threadTs: string }) {
    const card = await waitForCard(h.fake, thread, 'approval');
    await bot.slack.idle();
    return card;
  }

  /** Two instances on the same database under `policy`, and the requester's request made on the first; both sweep. */
  async function requestOnTwoInstances(policy: PolicyInput) {
    const tool = recordingDeleteTool();
    const first = await instance(policy, tool);
    h.bot = first;
    const second = await instance(policy);
    others.push(second);
    const thread = await mention(first, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    const card = await storedCard(first, thread);
    return { tool, first, second, thread, card };
  }

  async function sweepAll(bots: Bot[]): Promise<void> {
    await Promise.all(bots.map((b) => b.slack.sweepExpired()));
    await Promise.all(bots.map((b) => b.slack.idle()));
  }

  /** The request as every instance finds it `ms` later (see ageRequest). */
  const age = (actionId: number, ms: number) => ageRequest(h.database.db, { actionId }, ms);

  const posted = (pattern: RegExp): RecordedCall[] => h.fake.callsTo('chat.postMessage').filter((c) => pattern.test(String(c.args.text)));

  it('each notice once across two instances and a restart; the escalated approver may decide', async () => {
    const policy: PolicyInput = {
      tools: {
        // Ten seconds apart, so a loaded machine cannot make a notice due before the test looks for its absence.
        delete_record: { requireApproval: true, approvers: [ALICE], expiresIn: '60s', remindAfter: '10s', remindLimit: 1, escalateAfter: '20s', escalateTo: [BOSS] },
      },
    };
    const { tool, first, second, thread, card } = await requestOnTwoInstances(policy);
    h.bot = first;
    expect(card.call.args.text).toContain(`for <@${ALICE}>`);
    expect(card.call.args.text).not.toContain(BOSS);

    await sweepAll([h.bot, second]);
    expect(posted(/still waiting/)).toHaveLength(0);

    // The escalated approver cannot decide before the escalation.
    await clickButton(h.bot, card, BOSS, ACTION_IDS.approve);
    await h.bot.slack.idle();
    expect((await h.bot.agent.findRequest(card.actionId))!.status).toBe('pending');

    await age(card.actionId, 10_000);
    await sweepAll([h.bot, second]);
    const reminders = posted(/still waiting for a decision/);
    expect(reminders).toHaveLength(1);
    expect(reminders[0]!.args).toMatchObject({ channel: CHANNEL, thread_ts: thread.threadTs });
    expect(String(reminders[0]!.args.text)).toContain(`<@${ALICE}>: \`delete_record\` (request #${card.actionId}) is still waiting`);

    // A restart of one instance remembers nothing in memory, and needs not to.
    await second.stop();
    others.splice(others.indexOf(second), 1);
    const restarted = await instance(policy);
    others.push(restarted);
    await age(card.actionId, 10_000);
    await sweepAll([h.bot, restarted]);
    await sweepAll([restarted, h.bot]);
    expect(posted(/still waiting for a decision/)).toHaveLength(1);
    const escalations = posted(/escalated to you/);
    expect(escalations).toHaveLength(1);
    expect(String(escalations[0]!.args.text)).toMatch(new RegExp(`^:arrow_double_up: <@${BOSS}>: `));
    await waitForUpdate(h.fake, card, `<@${BOSS}>`);

    // (Clicked on the first instance: each instance's scripted model has its own script.)
    await clickButton(h.bot, card, BOSS, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${BOSS}>`);
    await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, 'finished');
    expect(tool.deleted).toEqual([{ id: 'abc' }]);
  });

  it('a last warning shortly before expiry, and the requester told once when it expires', async () => {
    const policy: PolicyInput = { tools: { delete_record: { requireApproval: true, approvers: [ALICE], expiresIn: '30s', warnBefore: '10s' } } };
    const { tool, first, second, thread, card } = await requestOnTwoInstances(policy);
    h.bot = first;
    await age(card.actionId, 20_000);
    await sweepAll([h.bot, second]);
    await sweepAll([second, h.bot]);
    const warnings = posted(/last call for/);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.args.text)).toContain(`<@${ALICE}>: last call for \`delete_record\` (request #${card.actionId})`);

    await age(card.actionId, 10_000);
    await sweepAll([h.bot, second]);
    await waitForUpdate(h.fake, card, 'Expired');
    const told = await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, 'expired: nobody decided');
    expect(String(told.args.text)).toContain(`<@${REQUESTER}>, your request \`delete_record\` (request #${card.actionId}) expired`);
    await sweepAll([second, h.bot]);
    expect(posted(/expired: nobody decided/)).toHaveLength(1);
    expect(tool.deleted).toEqual([]);
  });

  it('a reminder claimed by an instance that stopped before posting it goes out once, after the claim is stale', async () => {
    const policy: PolicyInput = { tools: { delete_record: { requireApproval: true, approvers: [ALICE], expiresIn: '60s', remindAfter: '1s', remindLimit: 1 } } };
    h.bot = await instance(policy);
    const thread = await mention(h.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    const card = await storedCard(h.bot, thread);
    await age(card.actionId, 1100);
    // Another instance won the reminder's claim a moment ago and stopped before posting it.
    await sql`INSERT INTO slack_notices (action_id, notice) VALUES (${card.actionId}, 'remind:1')`.execute(h.database.db);
    await sweepAll([h.bot]);
    expect(posted(/still waiting for a decision/)).toHaveLength(0);

    // Once the claim is older than CARD_REPAIR_AFTER_MS (60 s here) without the notice sent, it is taken over: sent once.
    await sql`UPDATE slack_notices SET claimed_at = now() - interval '61 seconds' WHERE action_id = ${card.actionId}`.execute(h.database.db);
    const second = await instance(policy);
    others.push(second);
    await sweepAll([h.bot, second]);
    await sweepAll([second, h.bot]);
    const reminders = posted(/still waiting for a decision/);
    expect(reminders).toHaveLength(1);
    expect(reminders[0]!.args).toMatchObject({ channel: CHANNEL, thread_ts: thread.threadTs });

    // Sent is sent: an old claim with its notice delivered is never taken again.
    await sql`UPDATE slack_notices SET claimed_at = now() - interval '1 hour' WHERE action_id = ${card.actionId}`.execute(h.database.db);
    await sweepAll([h.bot, second]);
    expect(posted(/still waiting for a decision/)).toHaveLength(1);
  });

  it('reminders due at the same moment are claimed in the order of their requests: another instance holding the first never waits on the second', twoConnections(backend), async () => {
    const policy: PolicyInput = { tools: { delete_record: { requireApproval: true, approvers: [ALICE], expiresIn: '60s', remindAfter: '1s', remindLimit: 1 } } };
    // Two runs, each asking to delete one record.
    const script = ['abc', 'def'].map((id) => ({ toolCalls: [{ toolName: 'delete_record', args: { id } }] }));
    h.bot = await startDeleteBot(h, policy, { agentId, script });
    const cards = [];
    for (const text of ['delete abc', 'delete def']) {
      const thread = await mention(h.bot, { user: REQUESTER, channel: CHANNEL, text });
      cards.push(await storedCard(h.bot, thread));
    }
    const [first, second] = cards.map((c) => c.actionId).sort((a, b) => a - b);
    // Asked at the same moment (as the calls of one step are) and reminded now; the second stored first.
    const createdAt = new Date(Date.now() - 1500).toISOString();
    const expiresAt = new Date(Date.now() + 58_500).toISOString();
    for (const id of [second!, first!]) {
      await sql`UPDATE pending_actions SET created_at = ${createdAt}, expires_at = ${expiresAt} WHERE id = ${id}`.execute(h.database.db);
    }
    // Another instance's sweep has claimed the first reminder and is about to claim the second.
    const outcome = await underAHolder(
      h.database.db,
      {
        takeFirst: sql`INSERT INTO slack_notices (action_id, notice) VALUES (${first!}, 'remind:1')`,
        takeSecond: sql`INSERT INTO slack_notices (action_id, notice) VALUES (${second!}, 'remind:1')`,
      },
      () => showDueNotices(h.bot!.slack.context, 60_000),
    );
    // The other instance has both reminders; this one, once it was done, found them claimed and sends none.
    expect(outcome).toEqual({ took: 'took it', work: 0 });
    await h.bot.slack.idle();
    expect(posted(/still waiting for a decision/)).toHaveLength(0);
  });

  it('notify: none reminds without pinging anyone', async () => {
    const policy: PolicyInput = { tools: { delete_record: { requireApproval: true, approvers: [ALICE], notify: 'none', expiresIn: '30s', remindAfter: '1s' } } };
    h.bot = await instance(policy);
    const thread = await mention(h.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    const card = await storedCard(h.bot, thread);
    await age(card.actionId, 1100);
    await sweepAll([h.bot]);
    const [reminder] = posted(/still waiting/);
    expect(String(reminder!.args.text)).toContain('`U0ALICE`: ');
    expect(String(reminder!.args.text)).not.toContain('<@');
  });

  it('with route: dm, a reminder also reaches the DM copies of the approvers who have not voted', async () => {
    const CAROL = 'U0CAROL';
    const policy: PolicyInput = {
      tools: { delete_record: { requireApproval: true, approvers: [ALICE, CAROL], quorum: 2, route: 'dm', expiresIn: '30s', remindAfter: '1s' } },
    };
    h.bot = await instance(policy);
    const thread = await mention(h.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    const card = await storedCard(h.bot, thread);
    const copyOf = async (channel: string) => {
      const call = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === channel && String(c.args.text).startsWith('Approval needed'));
      return { ...card, call, ts: String(call.response?.ts), channel, threadTs: String(call.response?.ts) };
    };
    const alices = await copyOf('D0ALICE');
    const carols = await copyOf('D0CAROL');
    // The thread's note comes once every copy is recorded.
    await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, ':outbox_tray:');
    await clickButton(h.bot, alices, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, '1 of 2:');
    await age(card.actionId, 1100);
    await sweepAll([h.bot]);
    const reminders = posted(new RegExp(`\\(request #${card.actionId}\\) is still waiting for a decision`));
    expect(reminders.map((r) => [r.args.channel, r.args.thread_ts])).toEqual([
      [CHANNEL, thread.threadTs],
      ['D0CAROL', carols.ts],
    ]);
    expect(String(reminders[0]!.args.text)).toMatch(new RegExp(`^:bell: <@${CAROL}>: `));
  });

  it('with route: dm, an escalation sends the added approvers a copy by DM, from which they can decide', async () => {
    const policy: PolicyInput = {
      tools: { delete_record: { requireApproval: true, approvers: [ALICE], route: 'dm', expiresIn: '30s', escalateAfter: '1s', escalateTo: [BOSS] } },
    };
    const tool = recordingDeleteTool();
    h.bot = await instance(policy, tool);
    const thread = await mention(h.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    const card = await storedCard(h.bot, thread);
    await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, ':outbox_tray:');
    expect(h.fake.callsTo('conversations.open').map((c) => c.args.users)).toEqual([ALICE]);
    await age(card.actionId, 1100);
    await sweepAll([h.bot]);
    const copyCall = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === 'D0BOSS' && String(c.args.text).startsWith('Approval needed'));
    expect(String(copyCall.args.text)).toContain(`<@${BOSS}>`);
    const told = await waitForText(h.fake, { channel: 'D0BOSS' }, 'escalated to you');
    expect(told.args.thread_ts).toBe(copyCall.response?.ts);
    const bossCopy = { ...card, call: copyCall, ts: String(copyCall.response?.ts), channel: 'D0BOSS', threadTs: String(copyCall.response?.ts) };
    await clickButton(h.bot, bossCopy, BOSS, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${BOSS}>`);
    await waitForText(h.fake, { channel: CHANNEL, threadTs: thread.threadTs }, 'finished');
    expect(tool.deleted).toEqual([{ id: 'abc' }]);
  });

  afterEachStop();
  function afterEachStop() {
    // The harness stops h.bot; the other instances of a test are stopped here.
    afterEach(async () => {
      await Promise.all(others.splice(0).map((b) => b.stop()));
    });
  }
});
