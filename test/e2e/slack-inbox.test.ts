import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS, actionButtonValue, approvalButtonValue } from '../../src/slack/kit/action-ids.js';
import { APPROVALS_USAGE } from '../../src/slack/inbox/inbox-actions.js';
import { UNSEEN_REQUEST } from '../../src/slack/card/button-check.js';
import { appHomeOpenedEnvelope, blockActionsPayload, blockLimitErrors, viewLimitErrors, viewSubmissionPayload, type StoredView } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { ageRequest } from '../helpers/age-records.js';
import { viewText } from '../helpers/home-view.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { clickButton, mention, homeClickPayload, recordingDeleteTool, slackHarness, startBot, waitForCard, waitForText, waitForUpdate, type AgentDeps, type Bot } from '../helpers/slack-bot.js';
import { CHANNEL, REQUESTER, ALICE, CAROL, DAVE, MALLORY } from '../helpers/test-workspace.js';

const GROUP = 'S0OPSTEAM';

type Block = Record<string, any>;


/** The Approve/Decline block of request `actionId` in a list of blocks. */
function inboxButtons(blocks: unknown[], actionId: number): Block | undefined {
  return (blocks as Block[]).find((b) => b.type === 'actions' && b.block_id === `approval:${actionId}`);
}

describeOnOneBackend('the approvals inbox in Slack on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(steps: ScriptStep[], policy: PolicyInput, homeRefresh = { debounceMs: 20, minIntervalMs: 0 }) {
    const { deleteRecord, deleted } = recordingDeleteTool();
    h.fake.setUsergroup(GROUP, [CAROL, DAVE]);
    const bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      homeRefresh,
      makeAgent: (deps: AgentDeps) =>
        new Agent({
          id: 'ops',
          instructions: 'test',
          model: scriptedModel(steps),
          tools: { delete_record: deleteRecord },
          storage: h.database,
          policy: definePolicy(policy),
          ...deps,
        }),
    });
    h.bot = bot;
    return { bot, deleted };
  }

  const policy: PolicyInput = { tools: { delete_record: { approvers: [ALICE, GROUP], allowSelfApproval: false } } };

  async function openHome(bot: Bot, user: string): Promise<StoredView> {
    const before = h.fake.callsTo('views.publish').filter((c) => c.args.user_id === user).length;
    const res = await bot.send.event(appHomeOpenedEnvelope({ user, channel: `D${user.slice(1)}` }));
    expect(res.status).toBe(200);
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === user && h.fake.callsTo('views.publish').filter((x) => x.args.user_id === user).length > before);
    return h.fake.homeView(user)!;
  }

  /** Waits until `user`'s published Home satisfies `check`. */
  async function homeWhere(user: string, check: (text: string) => boolean): Promise<StoredView> {
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === user && check(viewText(h.fake.homeView(user))), { timeoutMs: 5000 });
    return h.fake.homeView(user)!;
  }

  it('Home lists what waits for each approver (groups included) and what the requester asked for, and deciding from it works like the card', async () => {
    const { bot, deleted } = await boot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'h1 <!here>' } }] }, { text: 'Deleted h1.' }], policy);
    expect(viewText(await openHome(bot, ALICE))).toContain('Nothing is waiting for your decision.');
    await openHome(bot, CAROL);
    await openHome(bot, REQUESTER);

    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete h1' });
    const card = await waitForCard(h.fake, thread, 'approval');

    // Republished for the approver, the group's member and the requester, who have a Home, without anyone reopening it.
    const aliceHome = await homeWhere(ALICE, (t) => t.includes('Delete record'));
    expect(viewText(aliceHome)).toContain('*Waiting for you* (1)');
    // The call in words, as its card says it: the tool's name in words, each argument labelled; no JSON.
    expect(viewText(aliceHome)).toContain(`*Delete record* #${card.actionId}`);
    expect(viewText(aliceHome)).toContain(`\`delete_record\` · requested by <@${REQUESTER}>`);
    expect(viewText(aliceHome)).toContain('*ID* h1 &lt;!here&gt;');
    expect(viewText(aliceHome)).not.toContain('{"id"');
    expect(viewText(aliceHome)).toMatch(new RegExp(`<https://[^|]+/archives/${CHANNEL}/p${card.ts.replace('.', '')}\\?thread_ts=${thread.threadTs}&cid=${CHANNEL}\\|open thread>`));
    const buttons = inboxButtons(aliceHome.blocks, card.actionId)!;
    expect(buttons.elements.map((e: Block) => [e.action_id, e.style])).toEqual([
      [ACTION_IDS.inboxApprove, 'primary'],
      [ACTION_IDS.inboxDecline, 'danger'],
    ]);
    const cardButtons = card.blocks.find((b) => b.type === 'actions')!;
    expect(buttons.elements[0].value).toBe(cardButtons.elements[0].value);
    expect(viewText(await homeWhere(CAROL, (t) => t.includes('Delete record')))).toContain('*Waiting for you* (1)');
    const requesterHome = await homeWhere(REQUESTER, (t) => t.includes('Delete record'));
    expect(viewText(requesterHome)).toContain('*Waiting for you* (0)');
    expect(viewText(requesterHome)).toMatch(/\*Requested by you\*[\s\S]*\*Delete record\* \(\*ID\* h1 &lt;!here&gt;\) #\d+ · <[^>]+> — :hourglass_flowing_sand: waiting/);
    expect(inboxButtons(requesterHome.blocks, card.actionId)).toBeUndefined();

    // Someone who may not decide sees nothing waiting, and a click made with another person's button is refused on their
    // Home with what an unknown id gets: nothing of the request (its tool, who may decide it).
    expect(viewText(await openHome(bot, MALLORY))).toContain('*Waiting for you* (0)');
    const forged = await bot.send.interaction(homeClickPayload(h.fake.homeView(MALLORY)!, MALLORY, buttons.elements[0], buttons.block_id));
    expect(forged.status).toBe(200);
    const refusedHome = viewText(await homeWhere(MALLORY, (t) => t.includes(UNSEEN_REQUEST)));
    expect(refusedHome).toContain(`:warning: ${UNSEEN_REQUEST}`);
    expect(refusedHome).not.toContain('delete_record');
    expect(refusedHome).not.toContain('Delete record');
    expect(deleted).toEqual([]);
    expect(h.fake.callsTo('chat.update').filter((c) => c.args.ts === card.ts)).toEqual([]);

    // Approve from Alice's Home: the card in the thread updates, the tool runs once, the run answers in the thread.
    const click = await bot.send.interaction(homeClickPayload(aliceHome, ALICE, buttons.elements[0], buttons.block_id));
    expect(click.status).toBe(200);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Deleted h1.');
    expect(deleted).toEqual([{ id: 'h1 <!here>' }]);

    // Every inbox that showed it is republished: nothing waits, the decision is listed, the requester sees the outcome.
    const after = viewText(await homeWhere(ALICE, (t) => t.includes('*Waiting for you* (0)')));
    expect(after).toMatch(/\*Your recent decisions\*[\s\S]*\*Delete record\* \(\*ID\* h1 &lt;!here&gt;\) #\d+ · <[^>]+> — :white_check_mark: approved by <@U0ALICE>/);
    await homeWhere(CAROL, (t) => t.includes('*Waiting for you* (0)'));
    await homeWhere(REQUESTER, (t) => t.includes(':white_check_mark: approved by'));
    // Dave, in the group too, never opened the Home tab: Slack shows him none, so none is published for him.
    expect(h.fake.callsTo('views.publish').filter((c) => c.args.user_id === DAVE)).toEqual([]);

    // A second click from the Home as it was before changes nothing, and says why there.
    await bot.send.interaction(homeClickPayload(aliceHome, ALICE, buttons.elements[0], buttons.block_id));
    await homeWhere(ALICE, (t) => t.includes(`already approved by <@${ALICE}>`));
    await bot.slack.idle();
    expect(deleted).toHaveLength(1);
  });

  it('a flood of Home opens by one person does not hold up another person’s Home: his opens wait as one publish, and hers comes next', async () => {
    const { bot } = await boot([], policy);
    const before = h.fake.callsTo('views.publish').length;
    const publishes = () => h.fake.callsTo('views.publish').slice(before);
    const open = (user: string) => bot.send.event(appHomeOpenedEnvelope({ user, channel: `D${user.slice(1)}` }));
    // His first publish is held under way at Slack, so every later open arrives while it is out,
    // however fast or slow the machine: what is asserted is what the queue does with them, not
    // how many publishes a flood of a given length happens to outlast.
    const release = h.fake.holdResponseNext('views.publish');
    expect((await open(MALLORY)).status).toBe(200);
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === MALLORY);
    const flood = await Promise.all(Array.from({ length: 149 }, () => open(MALLORY)));
    expect(flood.every((res) => res.status === 200)).toBe(true);
    // Events are acknowledged before their work starts, and that work starts in the order they came:
    // hers joins the queue after all of his.
    expect((await open(ALICE)).status).toBe(200);
    release();
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === ALICE);
    await bot.slack.idle();
    // 150 opens were two publishes: the one under way, and one for the 149 that came while it was out.
    // Hers came right after his waiting one, and once.
    expect(publishes().map((c) => c.args.user_id)).toEqual([MALLORY, MALLORY, ALICE]);
  });

  it('an escalation puts the request in the added approver’s Home, and the decision republishes it there too', async () => {
    const BOSS = 'U0BOSS';
    const { bot } = await boot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'e1' } }] }, { text: 'Deleted e1.' }], {
      tools: { delete_record: { approvers: [ALICE], allowSelfApproval: false, expiresIn: '60s', escalateAfter: '1s', escalateTo: [BOSS] } },
    });
    expect(viewText(await openHome(bot, BOSS))).toContain('*Waiting for you* (0)');
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete e1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    // The card on record (the sweep sends notices of requests with a card), then a little more than
    // escalateAfter later, as the sweep finds it.
    await bot.slack.idle();
    await ageRequest(h.database.db, { actionId: card.actionId }, 1_100);
    await bot.slack.sweepExpired();
    await waitForText(h.fake, thread, 'escalated to you');
    // Republished by the escalation itself, without the boss reopening the tab.
    const escalated = await homeWhere(BOSS, (t) => t.includes('*Waiting for you* (1)'));
    expect(inboxButtons(escalated.blocks, card.actionId)).toBeDefined();

    await clickButton(bot, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    // The decision's republish reaches the escalated approver: nothing waits for him any more.
    await homeWhere(BOSS, (t) => t.includes('*Waiting for you* (0)'));
    await waitForText(h.fake, thread, 'Deleted e1.');
  });

  it('with two instances, a Home opened on one is republished by the other when a request there is decided', async () => {
    const { bot: first } = await boot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'm2' } }] }], policy);
    const { deleteRecord, deleted } = recordingDeleteTool();
    const second = await startBot({
      fake: h.fake,
      db: h.database.db,
      homeRefresh: { debounceMs: 20, minIntervalMs: 0 },
      makeAgent: (deps: AgentDeps) =>
        new Agent({ id: 'ops', instructions: 'test', model: scriptedModel([{ text: 'Deleted m2 on the other instance.' }]), tools: { delete_record: deleteRecord }, storage: h.database, policy: definePolicy(policy), ...deps }),
    });
    try {
      await openHome(first, CAROL);
      const thread = await mention(first, { user: REQUESTER, channel: CHANNEL, text: 'delete m2' });
      const card = await waitForCard(h.fake, thread, 'approval');
      await homeWhere(CAROL, () => inboxButtons(h.fake.homeView(CAROL)!.blocks, card.actionId) !== undefined);
      const publishedBefore = h.fake.callsTo('views.publish').length;

      await clickButton(second, card, ALICE, ACTION_IDS.approve);
      await waitForText(h.fake, thread, 'Deleted m2 on the other instance.');
      expect(deleted).toEqual([{ id: 'm2' }]);
      // Carol opened her Home on the first instance; the second one, which recorded the decision, republishes it.
      await homeWhere(CAROL, () => inboxButtons(h.fake.homeView(CAROL)!.blocks, card.actionId) === undefined);
      expect(h.fake.callsTo('views.publish').slice(publishedBefore).every((c) => c.args.user_id !== DAVE)).toBe(true);
    } finally {
      await second.stop();
    }
  });

  it('"…and N more" opens the whole list in a modal, newest first, a page at a time, each request in words', async () => {
    const asked = 27;
    const { bot } = await boot(
      Array.from({ length: asked }, (_, i) => ({ toolCalls: [{ toolName: 'delete_record', args: { id: `many-${i + 1}` } }] })),
      policy,
    );
    const runs: string[] = [];
    for (let i = 0; i < asked; i++) runs.push((await bot.agent.generate(`delete many-${i + 1}`, { requester: REQUESTER })).runId);
    const home = await openHome(bot, REQUESTER);
    const more = (home.blocks as Block[]).find((b) => b.block_id === 'inbox:more:requested')!;
    // Earlier tests in this file asked for some too: the button names them all.
    const total = Number(/^Show all (\d+)$/.exec(more.accessory.text.text)?.[1]);
    expect(total).toBeGreaterThanOrEqual(asked);
    expect(more.text.text).toBe(`…and ${total - 10} more.`);

    const openedBefore = h.fake.callsTo('views.open').length;
    await bot.send.interaction(homeClickPayload(home, REQUESTER, more.accessory, more.block_id));
    const opened = await h.fake.waitFor((c) => c.method === 'views.open' && h.fake.callsTo('views.open').length > openedBefore);
    const modal = opened.args.view as { title: { text: string }; blocks: Block[] };
    expect(modal.title.text).toBe('Requested by you');
    expect(viewLimitErrors(modal, 'modal')).toEqual([]);
    const first = viewText(modal);
    expect(first).toContain(`1–25 of ${total}, newest first.`);
    // Newest first: the last one asked for heads the list, in words, with where it stands.
    expect(first).toMatch(new RegExp(`^\\*Delete record\\* \\(\\*ID\\* many-${asked}\\) #\\d+ — :hourglass_flowing_sand: waiting`, 'm'));
    expect(first).not.toContain('{"id"');

    // Older → draws the next page in the same modal.
    const viewId = String((opened.response as { view: { id: string } }).view.id);
    const pager = modal.blocks.find((b) => b.block_id === 'inbox:list:requested')!;
    expect(pager.elements.map((e: Block) => [e.action_id, e.value])).toEqual([[ACTION_IDS.inboxList, 'requested:25']]);
    await bot.send.interaction(homeClickPayload(h.fake.view(viewId)!, REQUESTER, pager.elements[0], pager.block_id));
    const updated = await h.fake.waitFor((c) => c.method === 'views.update' && c.args.view_id === viewId);
    const second = viewText(updated.args.view as { blocks: unknown[] });
    expect(second).toContain(`26–${Math.min(50, total)} of ${total}, newest first.`);
    expect(second).toMatch(/\(\*ID\* many-2\) #\d+ — :hourglass_flowing_sand: waiting/);
    const back = (updated.args.view as { blocks: Block[] }).blocks.find((b) => b.block_id === 'inbox:list:requested')!;
    expect(back.elements[0]).toMatchObject({ action_id: ACTION_IDS.inboxListNewer, value: 'requested:0' });

    // A forged list value, or someone outside the workspace, opens nothing.
    const opens = h.fake.callsTo('views.open').length;
    await bot.send.interaction(homeClickPayload(home, REQUESTER, { ...more.accessory, value: 'waiting:0' }, more.block_id));
    await bot.send.interaction(homeClickPayload(home, { id: MALLORY, teamId: 'T0OTHERORG' }, more.accessory, more.block_id));
    await bot.slack.idle();
    expect(h.fake.callsTo('views.open')).toHaveLength(opens);
    // Nothing of these waits for the later tests' approvers.
    await bot.agent.cancelRuns(runs, REQUESTER, 'Done with the list.');
  });

  it('Decline from Home opens the reason modal, and the submission declines the request beside its card', async () => {
    const { bot, deleted } = await boot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'h2' } }] }, { text: 'Not deleted.' }], policy);
    await openHome(bot, ALICE);
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete h2' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const home = await homeWhere(ALICE, () => inboxButtons(h.fake.homeView(ALICE)!.blocks, card.actionId) !== undefined);
    const buttons = inboxButtons(home.blocks, card.actionId)!;
    await bot.send.interaction(homeClickPayload(home, ALICE, buttons.elements[1], buttons.block_id));
    const opened = await h.fake.waitFor('views.open');
    const modal = opened.args.view as { callback_id: string; private_metadata: string };
    await bot.send.interaction(
      viewSubmissionPayload({ user: ALICE, callbackId: modal.callback_id, privateMetadata: modal.private_metadata, stateValues: { reason: { reason: 'not today' } } }),
    );
    await waitForUpdate(h.fake, card, `Declined by <@${ALICE}>`);
    await homeWhere(ALICE, (t) => new RegExp(`\\(\\*ID\\* h2\\) #${card.actionId} · <[^>]+> — :x: declined by <@U0ALICE>`).test(t));
    expect(deleted).toEqual([]);
  });

  it('/approvals lists the inbox privately, its buttons decide, and /approvals <id> shows one request only to who may see it', async () => {
    const { bot, deleted } = await boot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'c1' } }] }, { text: 'Deleted c1.' }], policy);
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete c1' });
    const card = await waitForCard(h.fake, thread, 'approval');

    const command = async (user: string, text: string) => {
      const before = h.fake.callsTo('response_url').length;
      const responseUrl = h.fake.responseUrl({ channel: CHANNEL, user });
      const res = await bot.send.command({ command: '/approvals', text, user, channel: CHANNEL, responseUrl });
      expect(res.status).toBe(200);
      await h.fake.waitFor(() => h.fake.callsTo('response_url').length > before);
      const answer = h.fake.callsTo('response_url')[before]!;
      expect(answer.args.response_type).toBe('ephemeral');
      expect(blockLimitErrors((answer.args.blocks ?? []) as unknown[]), 'the answer is valid Block Kit for a message').toEqual([]);
      return { text: String(answer.args.text), blocks: (answer.args.blocks ?? []) as Block[], all: `${String(answer.args.text)}\n${viewText({ blocks: (answer.args.blocks ?? []) as unknown[] })}` };
    };

    // Earlier tests in this file left requests of their own; this one is among Alice's, oldest first.
    const list = await command(ALICE, '');
    const waiting = Number(/^(\d+) requests? (is|are) waiting for you\.$/.exec(list.text)?.[1]);
    expect(waiting).toBeGreaterThanOrEqual(1);
    expect(list.all).toContain(`*Waiting for you* (${waiting})`);
    const buttons = inboxButtons(list.blocks, card.actionId)!;
    expect(buttons).toBeDefined();

    const mine = await command(REQUESTER, String(card.actionId));
    expect(mine.all).toContain(':hourglass_flowing_sand: waiting');
    expect(inboxButtons(mine.blocks, card.actionId)).toBeUndefined();
    const carol = await command(CAROL, `#${card.actionId}`);
    expect(inboxButtons(carol.blocks, card.actionId)).toBeDefined();

    // Someone who may not see it gets what an id that names nothing gets.
    const unseen = (id: number) => `There is no approval request #${id} that you may see. ${APPROVALS_USAGE}`;
    expect((await command(MALLORY, String(card.actionId))).text).toBe(unseen(card.actionId));
    expect((await command(ALICE, '999999')).text).toBe(unseen(999999));
    expect((await command(ALICE, 'delete everything')).text).toMatch(/^I did not understand that\. Usage: `\/approvals`/);
    expect((await command(ALICE, '0')).text).toMatch(/^I did not understand that/);
    expect((await command(ALICE, 'help')).text).toMatch(/^Usage:/);

    // A button in the ephemeral list: a refusal is told in the conversation where the command was typed.
    const answerUrls = new Map<string, string>();
    const ephemeralClick = (user: string) =>
      bot.send.interaction(
        blockActionsPayload({
          user,
          channel: CHANNEL,
          messageTs: '1726133799.000100',
          isEphemeral: true,
          actionId: ACTION_IDS.inboxApprove,
          blockId: buttons.block_id,
          value: buttons.elements[0].value,
          responseUrl: answerUrls.set(user, h.fake.responseUrl({ channel: CHANNEL, user })).get(user)!,
        }),
      );
    await ephemeralClick(REQUESTER);
    await h.fake.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === REQUESTER && c.args.channel === CHANNEL && String(c.args.text).includes('someone else has to approve'));
    expect(deleted).toEqual([]);
    await ephemeralClick(ALICE);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Deleted c1.');
    expect(deleted).toEqual([{ id: 'c1' }]);
    // The list Alice decided from is replaced by her list as it is now.
    const alicePath = new URL(answerUrls.get(ALICE)!).pathname;
    const redrawn = await h.fake.waitFor((c) => c.method === 'response_url' && c.path === alicePath && c.args.replace_original === true);
    expect(inboxButtons((redrawn.args.blocks ?? []) as unknown[], card.actionId)).toBeUndefined();
    expect(viewText({ blocks: (redrawn.args.blocks ?? []) as unknown[] })).toMatch(new RegExp(`#${card.actionId} · <[^>]+> — :white_check_mark: approved by <@${ALICE}>`));
    expect((await command(REQUESTER, String(card.actionId))).all).toContain(`:white_check_mark: approved by <@${ALICE}>`);
  });

  it('someone who may not see a request learns nothing of it from the inbox, /approvals or Show arguments: a decided one, a pending one, one without a card and an unknown id get the same reply', async () => {
    const { bot, deleted } = await boot(
      [
        { toolCalls: [{ toolName: 'delete_record', args: { id: 'v1' } }] },
        { text: 'Deleted v1.' },
        { toolCalls: [{ toolName: 'delete_record', args: { id: 'v2 asked from code' } }] },
        { toolCalls: [{ toolName: 'delete_record', args: { id: 'v3' } }] },
      ],
      policy,
    );
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete v1' });
    const decided = await waitForCard(h.fake, thread, 'approval');
    await clickButton(bot, decided, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted v1.');
    // A request made from code has no card; one made in Slack waits on its card.
    const fromCode = await bot.agent.generate('delete v2', { requester: REQUESTER });
    const call = fromCode.pending[0]!;
    const cardless = (await bot.agent.findRequest((await bot.agent.latestApprovalId(call.runId, call.toolCallId))!))!;
    const pendingThread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete v3' });
    const pending = await waitForCard(h.fake, pendingThread, 'approval');
    const fingerprintOf = (card: typeof pending) => JSON.parse(card.blocks.find((b) => b.type === 'actions')!.elements[0].value).f as string;

    /** An inbox button for request `id` as Slack would send it. */
    const inboxButton = (actionId: string, id: number, fingerprint = 'a'.repeat(64)) => ({ action_id: actionId, text: { type: 'plain_text', text: 'x' }, value: approvalButtonValue(id, fingerprint), style: 'primary' });
    await openHome(bot, MALLORY);
    await openHome(bot, REQUESTER);
    const homeClick = async (user: string, id: number, fingerprint?: string) => {
      const published = h.fake.callsTo('views.publish').filter((c) => c.args.user_id === user).length;
      await bot.send.interaction(homeClickPayload(h.fake.homeView(user)!, user, inboxButton(ACTION_IDS.inboxApprove, id, fingerprint), `approval:${id}`));
      await h.fake.waitFor(() => h.fake.callsTo('views.publish').filter((c) => c.args.user_id === user).length > published);
      return /:warning: (.*)/.exec(viewText(h.fake.homeView(user)))?.[1];
    };
    // From the Home tab: a decided request, a pending one, one without a card, and an id that names nothing.
    const unknownId = 999_999;
    expect(await homeClick(MALLORY, decided.actionId, fingerprintOf(decided))).toBe(UNSEEN_REQUEST);
    expect(await homeClick(MALLORY, pending.actionId, fingerprintOf(pending))).toBe(UNSEEN_REQUEST);
    expect(await homeClick(MALLORY, cardless.id, cardless.fingerprint!)).toBe(UNSEEN_REQUEST);
    expect(await homeClick(MALLORY, unknownId)).toBe(UNSEEN_REQUEST);
    // Its requester may see it, and is told how it went.
    expect(await homeClick(REQUESTER, decided.actionId, fingerprintOf(decided))).toBe(`This request was already approved by <@${ALICE}>. Nothing was changed.`);

    // Decline in an /approvals list (an ephemeral message): refused before any form opens, with the same words.
    const ephemeralDecline = async (user: string, id: number, fingerprint?: string) => {
      const before = h.fake.callsTo('chat.postEphemeral').length;
      await bot.send.interaction(
        blockActionsPayload({
          user,
          channel: CHANNEL,
          messageTs: '1726133799.000100',
          isEphemeral: true,
          actionId: ACTION_IDS.inboxDecline,
          blockId: `approval:${id}`,
          value: approvalButtonValue(id, fingerprint ?? 'a'.repeat(64)),
          responseUrl: h.fake.responseUrl({ channel: CHANNEL, user }),
        }),
      );
      const told = await h.fake.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === user && h.fake.callsTo('chat.postEphemeral').length > before);
      return String(told.args.text);
    };
    expect(await ephemeralDecline(MALLORY, pending.actionId, fingerprintOf(pending))).toBe(UNSEEN_REQUEST);
    expect(await ephemeralDecline(MALLORY, decided.actionId, fingerprintOf(decided))).toBe(UNSEEN_REQUEST);
    expect(await ephemeralDecline(MALLORY, unknownId)).toBe(UNSEEN_REQUEST);
    expect(h.fake.callsTo('views.open')).toEqual([]);

    // Show arguments with a button naming the request without a card: its arguments are not shown to Mallory.
    const showArguments = async (user: string, id: number) => {
      const before = h.fake.callsTo('chat.postEphemeral').length + h.fake.callsTo('views.open').length;
      await bot.send.interaction(
        blockActionsPayload({ user, channel: CHANNEL, messageTs: decided.ts, actionId: ACTION_IDS.showArguments, blockId: `approval:${id}`, value: actionButtonValue(id) }),
      );
      return h.fake.waitFor((c) => (c.method === 'chat.postEphemeral' || c.method === 'views.open') && c.args.user !== REQUESTER && h.fake.callsTo('chat.postEphemeral').length + h.fake.callsTo('views.open').length > before);
    };
    const toMallory = await showArguments(MALLORY, cardless.id);
    expect(toMallory.method).toBe('chat.postEphemeral');
    expect(JSON.stringify(toMallory.args)).not.toContain('asked from code');
    expect(toMallory.args.text).toBe((await showArguments(MALLORY, unknownId)).args.text);
    // Alice may decide it, so she may see it.
    const toAlice = await showArguments(ALICE, cardless.id);
    expect(toAlice.method).toBe('views.open');
    expect(JSON.stringify(toAlice.args.view)).toContain('v2 asked from code');

    // /approvals <id>: the same answer for each of them as for an id that names nothing.
    const commandText = async (user: string, text: string) => {
      const before = h.fake.callsTo('response_url').length;
      await bot.send.command({ command: '/approvals', text, user, channel: CHANNEL, responseUrl: h.fake.responseUrl({ channel: CHANNEL, user }) });
      await h.fake.waitFor(() => h.fake.callsTo('response_url').length > before);
      return String(h.fake.callsTo('response_url')[before]!.args.text).replace(/#\d+/, '#N');
    };
    const unknownAnswer = await commandText(MALLORY, String(unknownId));
    for (const id of [decided.actionId, pending.actionId, cardless.id]) expect(await commandText(MALLORY, String(id))).toBe(unknownAnswer);
    expect(await commandText(REQUESTER, String(cardless.id))).toBe('Request #N: Delete record (pending)');
    expect(deleted).toEqual([{ id: 'v1' }]);
  });
});
