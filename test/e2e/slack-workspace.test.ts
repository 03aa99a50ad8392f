import { sql } from 'kysely';
import { beforeEach, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { appHomeOpenedEnvelope, appMentionEnvelope, blockActionsPayload, messageEnvelope, SLACK_IDS, viewSubmissionPayload, type StoredView } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { viewText } from '../helpers/home-view.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import {
  cardActions,
  clickButton,
  freshTs,
  homeClickPayload,
  mention,
  recordingDeleteTool,
  slackHarness,
  startBot,
  waitForCard,
  waitForEphemeral,
  waitForText,
  waitForUpdate,
  type Bot,
  type PostedCard,
} from '../helpers/slack-bot.js';
import { ALICE, CHANNEL, REQUESTER } from '../helpers/test-workspace.js';

/** A Slack Connect partner in a shared channel: signed by Slack like anyone, but of another workspace. */
const OUTSIDER = 'U0OUTSIDER';
const PARTNER_TEAM = 'T0PARTNER';
const outsider = { id: OUTSIDER, teamId: PARTNER_TEAM };
const REFUSED = 'Only members of this workspace can act on its approval requests.';

type Block = Record<string, any>;

/** Polls until `check` holds (state in the database, which the simulator's records do not show). */
async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the database');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeOnOneBackend('people of another workspace (Slack Connect) on %s', (backend) => {
  const h = slackHarness(backend, { users: { [OUTSIDER]: { name: 'outsider', team_id: PARTNER_TEAM } } });

  async function boot(steps: ScriptStep[], policy: PolicyInput): Promise<{ bot: Bot; deleted: unknown[]; model: ReturnType<typeof scriptedModel> }> {
    const { deleteRecord, deleted } = recordingDeleteTool();
    const model = scriptedModel(steps);
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      homeRefresh: { debounceMs: 20, minIntervalMs: 0 },
      makeAgent: (deps) =>
        new Agent({
          id: 'ops',
          instructions: 'test',
          model,
          tools: { delete_record: deleteRecord, ask_user: askUserTool },
          storage: h.database,
          policy: definePolicy(policy),
          ...deps,
        }),
    });
    return { bot: h.bot, deleted, model };
  }

  /** Anyone but the bot may decide: the loosest approver rule, which must still not admit outsiders. */
  const anyone: PolicyInput = { tools: { delete_record: { requireApproval: true, approvers: [], rememberFor: '1h' } } };
  const deleteStep = (id: string): ScriptStep => ({ toolCalls: [{ toolName: 'delete_record', args: { id } }] });

  async function statusOf(actionId: number): Promise<string> {
    return (await sql<{ status: string }>`SELECT status FROM pending_actions WHERE id = ${actionId}`.execute(h.database.db)).rows[0]!.status;
  }

  // The file's tests share a database: each counts the refusals made since it started.
  let auditFrom = 0;
  beforeEach(async () => {
    auditFrom = Number((await sql<{ id: string | null }>`SELECT max(id) AS id FROM audit_events`.execute(h.database.db)).rows[0]?.id ?? 0);
  });

  async function refusals(actor: string): Promise<Array<{ why: string; decision: string }>> {
    const rows = await sql<{ detail: { why: string; decision: string } }>`
      SELECT detail FROM audit_events WHERE event = 'refused' AND actor = ${actor} AND id > ${auditFrom} ORDER BY id`.execute(h.database.db);
    return rows.rows.map((r) => ({ why: r.detail.why, decision: r.detail.decision }));
  }

  async function openHome(bot: Bot, user: string): Promise<StoredView> {
    const before = h.fake.callsTo('views.publish').filter((c) => c.args.user_id === user).length;
    await bot.send.event(appHomeOpenedEnvelope({ user, channel: `D${user.slice(1)}` }));
    await h.fake.waitFor(() => h.fake.callsTo('views.publish').filter((c) => c.args.user_id === user).length > before);
    return h.fake.homeView(user)!;
  }

  /** A modal a member opened from the card, whose metadata an outsider then submits as their own. */
  async function memberModal(bot: Bot, card: PostedCard, actionId: string): Promise<{ private_metadata: string }> {
    const before = h.fake.callsTo('views.open').length;
    await clickButton(bot, card, ALICE, actionId);
    await h.fake.waitFor(() => h.fake.callsTo('views.open').length > before);
    return h.fake.callsTo('views.open').at(-1)!.args.view as { private_metadata: string };
  }

  it('a click from another workspace decides nothing, on the card or in the Home tab; a member then approves once', async () => {
    const { bot, deleted } = await boot([deleteStep('x1'), { text: 'Deleted x1.' }], anyone);
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete x1' });
    const card = await waitForCard(h.fake, thread, 'approval');

    // Approve, and "Approve and allow for 1 hour": Slack Connect delivers `team` as the app's workspace, `user.team_id` as theirs.
    await clickButton(bot, card, OUTSIDER, ACTION_IDS.approve, { user: outsider });
    await waitForEphemeral(h.fake, OUTSIDER, REFUSED);
    await clickButton(bot, card, OUTSIDER, ACTION_IDS.approveRemember, { user: outsider });
    // Decline opens no form for them, and a decline form submitted in their name (a member's, replayed) declines nothing.
    const opened = h.fake.callsTo('views.open').length;
    await clickButton(bot, card, OUTSIDER, ACTION_IDS.decline, { user: outsider });
    await h.fake.waitFor(() => h.fake.callsTo('chat.postEphemeral').filter((c) => c.args.user === OUTSIDER).length >= 3);
    expect(h.fake.callsTo('views.open').length).toBe(opened);
    const decline = await memberModal(bot, card, ACTION_IDS.decline);
    await bot.send.interaction(
      viewSubmissionPayload({ user: outsider, callbackId: CALLBACK_IDS.declineModal, privateMetadata: decline.private_metadata, stateValues: { reason: { reason: 'nope' } } }),
    );
    // Edit: no form, and a submitted edit (a member's form, replayed) changes nothing.
    await clickButton(bot, card, OUTSIDER, ACTION_IDS.edit, { user: outsider });
    const edit = await memberModal(bot, card, ACTION_IDS.edit);
    await bot.send.interaction(
      viewSubmissionPayload({ user: outsider, callbackId: CALLBACK_IDS.editModal, privateMetadata: edit.private_metadata, stateValues: { f0: { value: { type: 'plain_text_input', value: 'everything' } } } }),
    );
    // The Home tab's Approve, clicked on a member's Home view as the outsider.
    const home = await openHome(bot, ALICE);
    const buttons = (home.blocks as Block[]).find((b) => b.type === 'actions' && b.block_id === `approval:${card.actionId}`)!;
    await bot.send.interaction(homeClickPayload(home, outsider, buttons.elements[0], buttons.block_id));
    await until(async () => (await refusals(OUTSIDER)).length >= 5);
    await bot.slack.idle();

    expect(deleted).toEqual([]);
    expect(await statusOf(card.actionId)).toBe('pending');
    // Every attempt that reached a decision is on the audit trail (the forms that never opened decided nothing).
    expect(await refusals(OUTSIDER)).toEqual(['approve', 'approve', 'decline', 'edit', 'approve'].map((decision) => ({ why: 'outside-workspace', decision })));
    expect(h.fake.callsTo('chat.postEphemeral').filter((c) => c.args.user === OUTSIDER).every((c) => String(c.args.text).startsWith(REFUSED))).toBe(true);
    expect(h.fake.callsTo('chat.update').filter((c) => c.args.ts === card.ts && String(c.args.text).includes(OUTSIDER))).toEqual([]);

    await clickButton(bot, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Deleted x1.');
    expect(deleted).toEqual([{ id: 'x1' }]);
  });

  it('an outsider cannot answer a question or revoke a remembered approval', async () => {
    const { bot } = await boot(
      [{ toolCalls: [{ toolName: 'ask_user', args: { question: 'Which one?', options: [{ label: 'a' }, { label: 'b' }] } }] }, { text: 'You chose.' }],
      anyone,
    );
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'ask me' });
    const card = await waitForCard(h.fake, thread, 'question');
    const actions = cardActions(card.blocks, 'question')!;
    const element = (actions.elements as Block[]).find((e) => e.action_id === ACTION_IDS.questionAnswer)!;
    await bot.send.interaction(
      blockActionsPayload({
        user: outsider,
        channel: card.channel,
        messageTs: card.ts,
        threadTs: card.threadTs,
        actionId: ACTION_IDS.questionAnswer,
        blockId: actions.block_id,
        actionType: element.type,
        selectedOption: { text: { type: 'plain_text', text: 'a' }, value: element.options[0].value },
      }),
    );
    // Their reply in the thread is people talking: not an answer, and not answered.
    await bot.send.event(appMentionEnvelope({ text: 'a', user: OUTSIDER, channel: CHANNEL, ts: freshTs(), threadTs: thread.threadTs, userTeam: PARTNER_TEAM }));
    await h.fake.waitFor(() => h.fake.callsTo('chat.postEphemeral').some((c) => c.args.user === OUTSIDER));
    await bot.slack.idle();
    expect(await statusOf(card.actionId)).toBe('pending');

    // A remembered approval, made by a member; the outsider's forged Revoke leaves it live.
    await bot.stop();
    h.bot = undefined;
    const second = await boot([deleteStep('r1'), { text: 'Deleted r1.' }], anyone);
    const t2 = await mention(second.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete r1' });
    const c2 = await waitForCard(h.fake, t2, 'approval');
    await clickButton(second.bot, c2, ALICE, ACTION_IDS.approveRemember);
    await waitForText(h.fake, t2, 'Deleted r1.');
    const grantId = (await sql<{ id: number }>`SELECT id FROM remembered_grants WHERE action_id = ${c2.actionId}`.execute(h.database.db)).rows[0]!.id;
    const home = await openHome(second.bot, REQUESTER);
    const row = (home.blocks as Block[]).find((b) => b.block_id === `remembered:${grantId}`)!;
    await second.bot.send.interaction(homeClickPayload(home, outsider, row.accessory, row.block_id));
    await h.fake.waitFor(() => h.fake.callsTo('views.publish').some((c) => c.args.user_id === OUTSIDER && JSON.stringify(c.args.view).includes(REFUSED)));
    const revoked = await sql<{ revoked_at: Date | null }>`SELECT revoked_at FROM remembered_grants WHERE id = ${grantId}`.execute(h.database.db);
    expect(revoked.rows[0]!.revoked_at).toBeNull();
    expect(second.deleted).toEqual([{ id: 'r1' }]);
  });

  it('/approvals and the Home tab show an outsider nothing, not even whether a request exists', async () => {
    const { bot } = await boot([deleteStep('s1'), { text: 'Deleted s1.' }], anyone);
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete s1' });
    const card = await waitForCard(h.fake, thread, 'approval');

    const command = async (text: string) => {
      const before = h.fake.callsTo('response_url').length;
      const responseUrl = h.fake.responseUrl({ channel: CHANNEL, user: OUTSIDER });
      await bot.send.command({ command: '/approvals', text, user: OUTSIDER, channel: CHANNEL, responseUrl, teamId: PARTNER_TEAM });
      await h.fake.waitFor(() => h.fake.callsTo('response_url').length > before);
      return h.fake.callsTo('response_url')[before]!.args;
    };
    for (const text of ['', String(card.actionId), '999999']) {
      const answer = await command(text);
      expect(answer.text).toBe(REFUSED);
      expect(answer.blocks ?? []).toEqual([]);
    }
    // A member typing the same sees the request.
    const before = h.fake.callsTo('response_url').length;
    await bot.send.command({ command: '/approvals', text: String(card.actionId), user: ALICE, channel: CHANNEL, responseUrl: h.fake.responseUrl({ channel: CHANNEL, user: ALICE }) });
    await h.fake.waitFor(() => h.fake.callsTo('response_url').length > before);
    expect(String(h.fake.callsTo('response_url')[before]!.args.text)).toContain(`Request #${card.actionId}`);

    // app_home_opened does not name the viewer's team: users.info does, and the Home lists nothing.
    const home = await openHome(bot, OUTSIDER);
    const text = viewText(home);
    expect(text).toContain(REFUSED);
    expect(text).not.toContain('delete_record');
    expect(text).not.toContain(`#${card.actionId}`);
    expect(h.fake.callsTo('users.info').some((c) => c.args.user === OUTSIDER)).toBe(true);
  });

  it('a mention from another workspace starts no run: the writer is told why and the refusal is audited', async () => {
    const { bot, model } = await boot([deleteStep('m1'), { text: 'Deleted m1.' }], anyone);
    const ts = freshTs();
    h.fake.seedMessage({ channel: CHANNEL, text: `<@${SLACK_IDS.botUserId}> delete m1`, user: OUTSIDER, ts });
    const envelope = appMentionEnvelope({ text: `<@${SLACK_IDS.botUserId}> delete m1`, user: OUTSIDER, channel: CHANNEL, ts, userTeam: PARTNER_TEAM });
    expect((await bot.send.event(envelope)).status).toBe(200);
    await waitForEphemeral(h.fake, OUTSIDER, 'I only take requests from members of this workspace');
    // Slack retries an event it thinks was lost: still one reply, one audit entry.
    await bot.send.event(envelope, { retryNum: 1, retryReason: 'http_timeout' });
    await bot.slack.idle();
    expect(model.doStreamCalls).toHaveLength(0);
    expect(h.fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === ts)).toEqual([]);
    expect(h.fake.callsTo('chat.postEphemeral').filter((c) => c.args.user === OUTSIDER)).toHaveLength(1);
    expect(await refusals(OUTSIDER)).toEqual([{ why: 'outside-workspace', decision: 'run' }]);

    // A direct message to the bot is a request too: the same refusal.
    const dm = `D${OUTSIDER.slice(1)}`;
    const dmTs = freshTs();
    h.fake.seedMessage({ channel: dm, text: 'delete m2', user: OUTSIDER, ts: dmTs });
    expect((await bot.send.event(messageEnvelope({ channel: dm, user: OUTSIDER, text: 'delete m2', ts: dmTs, userTeam: PARTNER_TEAM }))).status).toBe(200);
    await h.fake.waitFor((c) => c.args.channel === dm && String(c.args.text).includes('I only take requests from members of this workspace'));
    await bot.slack.idle();
    expect(model.doStreamCalls).toHaveLength(0);
    expect(await refusals(OUTSIDER)).toEqual([{ why: 'outside-workspace', decision: 'run' }, { why: 'outside-workspace', decision: 'run' }]);
  });

  it('a team the policy trusts (allowExternalTeams) requests and decides like a member', async () => {
    const { bot, deleted } = await boot([deleteStep('p1'), { text: 'Deleted p1.' }], { ...anyone, allowExternalTeams: [PARTNER_TEAM] });
    const ts = freshTs();
    h.fake.seedMessage({ channel: CHANNEL, text: `<@${SLACK_IDS.botUserId}> delete p1`, user: OUTSIDER, ts });
    await bot.send.event(appMentionEnvelope({ text: `<@${SLACK_IDS.botUserId}> delete p1`, user: OUTSIDER, channel: CHANNEL, ts, userTeam: PARTNER_TEAM }));
    const card = await waitForCard(h.fake, { channel: CHANNEL, threadTs: ts }, 'approval');
    await clickButton(bot, card, REQUESTER, ACTION_IDS.approve);
    await waitForText(h.fake, { channel: CHANNEL, threadTs: ts }, 'Deleted p1.');
    expect(deleted).toEqual([{ id: 'p1' }]);
    expect(await refusals(OUTSIDER)).toEqual([]);
  });
});
