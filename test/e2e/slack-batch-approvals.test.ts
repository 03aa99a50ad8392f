/**
 * Parallel calls of one model step that need approval share one card: each call is still its own
 * request (own buttons, grant and audit), Approve all / Decline all decide the pending ones, and
 * the run continues once, when the last of them is decided.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { appHomeOpenedEnvelope, viewSubmissionPayload } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import {
  blocksOf,
  buttonClick,
  homeClickPayload,
  inThread,
  mention,
  recordingDeleteTool,
  slackHarness,
  startBot,
  textOf,
  updatesOf,
  waitForEphemeral,
  waitForText,
  waitForUpdate,
  type Bot,
  type PostedCard,
} from '../helpers/slack-bot.js';
import { ALICE, BOB, CHANNEL, REQUESTER } from '../helpers/test-workspace.js';

const THREE: ScriptStep[] = [
  {
    text: 'Deleting three records.',
    toolCalls: [
      { toolName: 'delete_record', args: { id: 'rec-a' } },
      { toolName: 'delete_record', args: { id: 'rec-b' } },
      { toolName: 'delete_record', args: { id: 'rec-c' } },
    ],
  },
  { text: 'Finished with the records.' },
];

type Block = Record<string, any>;

describeOnOneBackend('batch cards for parallel approval calls on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(policy: PolicyInput = {}, steps: ScriptStep[] = THREE) {
    const { deleteRecord, deleted } = recordingDeleteTool();
    const model = scriptedModel(steps);
    const bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      cardRepairAfterMs: 60_000,
      makeAgent: (deps) => new Agent({ id: 'ops', instructions: 'test', model, tools: { delete_record: deleteRecord }, storage: h.database, policy: definePolicy(policy), ...deps }),
    });
    h.bot = bot;
    return { bot, model, deleted };
  }

  /** Every approval card (single or batch) posted in the thread. */
  const cardsIn = (thread: { channel: string; threadTs: string }) =>
    h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, thread.channel, thread.threadTs) && blocksOf(c).some((b) => String(b.block_id ?? '').startsWith('approval:')));

  async function batchCard(thread: { channel: string; threadTs: string }): Promise<PostedCard> {
    const call = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, thread.channel, thread.threadTs) && textOf(c).includes('actions need approval'));
    return { call, actionId: Number.NaN, ts: String(call.response?.ts), channel: thread.channel, threadTs: thread.threadTs, blocks: blocksOf(call) };
  }

  /** The latest blocks of a card: its last update, else as posted. */
  const latest = (card: PostedCard): Block[] => {
    const updates = updatesOf(h.fake, card);
    return updates.length > 0 ? blocksOf(updates[updates.length - 1]!) : card.blocks;
  };

  /** Clicks `actionId` in the block `blockId` of the card as it is now. */
  async function click(bot: Bot, card: PostedCard, user: string, blockId: string, actionId: string) {
    const block = latest(card).find((b) => b.block_id === blockId);
    const button = (block?.elements as Block[] | undefined)?.find((e) => e.action_id === actionId);
    expect(button, `${actionId} in ${blockId}`).toBeDefined();
    const response = await bot.send.interaction(buttonClick(card, user, actionId, { blockId, value: button!.value }).payload);
    expect(response.status).toBe(200);
    return response;
  }

  const memberIds = (card: PostedCard) => card.blocks.flatMap((b) => (/^approval:\d+$/.test(String(b.block_id)) ? [Number(String(b.block_id).split(':')[1])] : []));
  const batchBlockOf = (card: PostedCard) => String(latest(card).find((b) => String(b.block_id).startsWith('batch:'))?.block_id);

  it('one card for three calls; decline one on its own, Approve all the other two; each runs once, with its own audit', async () => {
    const { bot, model, deleted } = await boot();
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    const card = await batchCard(thread);
    await bot.slack.idle();
    expect(cardsIn(thread)).toHaveLength(1);
    expect(textOf(card.call)).toContain('3 actions need approval');
    expect(textOf(card.call)).toContain('Waiting for 3 of 3 decisions');
    const [a, b, c] = memberIds(card);
    expect([a, b, c].every(Number.isFinite)).toBe(true);

    // Decline b on its own, through the reason modal, as on a single card.
    await click(bot, card, ALICE, `approval:${b}`, ACTION_IDS.decline);
    const opened = await h.fake.waitFor('views.open');
    const view = opened.args.view as { private_metadata: string };
    const submitted = await bot.send.interaction(
      viewSubmissionPayload({ user: ALICE, callbackId: CALLBACK_IDS.declineModal, privateMetadata: view.private_metadata, stateValues: { reason: { reason: 'keep b' } } }),
    );
    expect(submitted.status).toBe(200);
    await waitForUpdate(h.fake, card, 'Waiting for 2 of 3 decisions');
    expect(textOf(updatesOf(h.fake, card).at(-1)!)).toContain(`Declined by <@${ALICE}>: keep b`);
    expect(deleted).toEqual([]);
    expect(model.doStreamCalls).toHaveLength(1);

    const approveAll = await click(bot, card, BOB, batchBlockOf(card), ACTION_IDS.batchApproveAll);
    expect(approveAll.status).toBe(200);
    await waitForText(h.fake, thread, 'Finished with the records.');
    await bot.slack.idle();
    const final = textOf(updatesOf(h.fake, card).at(-1)!);
    expect(final).toContain('All decided: the run continues');
    expect(final.match(new RegExp(`Approved by <@${BOB}>`, 'g'))).toHaveLength(2);
    expect(final).toContain(`Declined by <@${ALICE}>: keep b`);
    expect(latest(card).filter((x) => x.type === 'actions')).toEqual([]);

    expect(deleted).toEqual([{ id: 'rec-a' }, { id: 'rec-c' }]);
    // The run continued once: one model call after the pause, which saw all three results.
    expect(model.doStreamCalls).toHaveLength(2);
    const results = model.doStreamCalls[1]!.prompt.flatMap((m) => (m.role === 'tool' ? m.content : []));
    expect(results.map((r) => (r as { output: { type: string } }).output.type).sort()).toEqual(['execution-denied', 'json', 'json']);
    expect(cardsIn(thread)).toHaveLength(1);

    // Each call has its own request, grant and audit trail.
    const runId = (await bot.agent.findRequest(a!))!.run_id;
    const events = await listAuditEvents(h.database.db, { runId });
    const calls = new Set(events.filter((e) => e.event === 'requested').map((e) => e.toolCallId));
    expect(calls.size).toBe(3);
    for (const callId of calls) {
      const mine = events.filter((e) => e.toolCallId === callId).map((e) => e.event);
      expect(mine[0]).toBe('requested');
      const executed = mine.includes('executed');
      expect(executed ? mine.filter((e) => ['approved', 'consumed', 'executed'].includes(e)) : mine.filter((e) => e === 'declined')).toEqual(
        executed ? ['approved', 'consumed', 'executed'] : ['declined'],
      );
    }
    expect(events.filter((e) => e.event === 'executed')).toHaveLength(2);
    expect(events.filter((e) => e.event === 'declined').map((e) => e.actor)).toEqual([ALICE]);
    expect(events.filter((e) => e.event === 'approved').map((e) => e.actor)).toEqual([BOB, BOB]);
  });

  it('two approvers click Approve all at once: every call runs exactly once, the run continues once', async () => {
    const { bot, model, deleted } = await boot();
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    const card = await batchCard(thread);
    await bot.slack.idle();
    const block = batchBlockOf(card);
    await Promise.all([click(bot, card, ALICE, block, ACTION_IDS.batchApproveAll), click(bot, card, BOB, block, ACTION_IDS.batchApproveAll)]);
    await waitForText(h.fake, thread, 'Finished with the records.');
    await bot.slack.idle();
    await waitForUpdate(h.fake, card, 'All decided: the run continues');
    expect([...deleted].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual([{ id: 'rec-a' }, { id: 'rec-b' }, { id: 'rec-c' }]);
    expect(model.doStreamCalls).toHaveLength(2);
    const answers = h.fake.calls.filter((c) => c.method === 'chat.postMessage' && inThread(c, CHANNEL, thread.threadTs) && textOf(c).includes('Finished with the records.'));
    expect(answers).toHaveLength(1);
    const runId = (await bot.agent.findRequest(memberIds(card)[0]!))!.run_id;
    const events = await listAuditEvents(h.database.db, { runId });
    expect(events.filter((e) => e.event === 'approved')).toHaveLength(3);
    expect(events.filter((e) => e.event === 'consumed')).toHaveLength(3);
    expect(events.filter((e) => e.event === 'executed')).toHaveLength(3);
    // Neither clicker is told anything was refused: calls the other decided are skipped.
    expect(h.fake.calls.filter((c) => c.method === 'chat.postEphemeral' && textOf(c).includes('not changed'))).toEqual([]);
  });

  it('Approve all by someone allowed for only some calls: those are approved, the rest stay pending and the clicker is told', async () => {
    const { bot, deleted } = await boot({
      tools: { delete_record: { requireApproval: true, approvers: [ALICE, BOB], rules: [{ when: { arg: 'id', op: 'eq', value: 'rec-c' }, then: { approvers: [BOB] } }] } },
    });
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    const card = await batchCard(thread);
    await bot.slack.idle();
    const [, , c] = memberIds(card);
    await click(bot, card, ALICE, batchBlockOf(card), ACTION_IDS.batchApproveAll);
    const told = await waitForEphemeral(h.fake, ALICE, 'was not changed');
    expect(textOf(told)).toContain(`#${c}`);
    await waitForUpdate(h.fake, card, 'Waiting for 1 of 3 decisions');
    await bot.slack.idle();
    expect(deleted).toEqual([]);
    expect((await bot.agent.findRequest(c!))!.status).toBe('pending');
    // The card still offers c's own buttons, and Approve all for what is left.
    expect(latest(card).filter((x) => x.type === 'actions').map((x) => x.block_id)).toEqual([`approval:${c}`, batchBlockOf(card)]);

    await click(bot, card, BOB, `approval:${c}`, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Finished with the records.');
    expect(deleted).toHaveLength(3);
    await waitForUpdate(h.fake, card, 'All decided: the run continues');
  });

  it('Decline all asks for one reason, then declines every pending call with it; nothing runs and the run continues once', async () => {
    const { bot, model, deleted } = await boot();
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    const card = await batchCard(thread);
    await bot.slack.idle();
    await click(bot, card, ALICE, batchBlockOf(card), ACTION_IDS.batchDeclineAll);
    const opened = await h.fake.waitFor('views.open');
    const view = opened.args.view as { private_metadata: string; callback_id: string };
    expect(view.callback_id).toBe(CALLBACK_IDS.batchDeclineModal);
    expect(deleted).toEqual([]);
    expect(updatesOf(h.fake, card)).toEqual([]);
    const submitted = await bot.send.interaction(
      viewSubmissionPayload({ user: ALICE, callbackId: CALLBACK_IDS.batchDeclineModal, privateMetadata: view.private_metadata, stateValues: { reason: { reason: 'not today <!here>' } } }),
    );
    expect(submitted.status).toBe(200);
    await waitForText(h.fake, thread, 'Finished with the records.');
    await bot.slack.idle();
    const final = textOf(updatesOf(h.fake, card).at(-1)!);
    expect(final.match(new RegExp(`Declined by <@${ALICE}>: not today &lt;!here&gt;`, 'g'))).toHaveLength(3);
    expect(final).toContain('All decided: the run continues');
    expect(deleted).toEqual([]);
    expect(model.doStreamCalls).toHaveLength(2);
    const results = model.doStreamCalls[1]!.prompt.flatMap((m) => (m.role === 'tool' ? m.content : []));
    expect(results.map((r) => (r as { output: unknown }).output)).toEqual(
      Array(3).fill({ type: 'execution-denied', reason: `Tool call declined by ${ALICE}; delete_record did not run. Their reason, in their own words: "not today <!here>".` }),
    );
  });

  it('Decline all still declines, without a reason, when its modal cannot open (expired trigger)', async () => {
    const { bot, deleted } = await boot();
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    const card = await batchCard(thread);
    await bot.slack.idle();
    h.fake.setExpiredTriggerIds('all');
    try {
      await click(bot, card, BOB, batchBlockOf(card), ACTION_IDS.batchDeclineAll);
      await h.fake.waitFor((c) => c.method === 'views.open' && c.error === 'expired_trigger_id');
      await waitForText(h.fake, thread, 'Finished with the records.');
    } finally {
      h.fake.setExpiredTriggerIds([]);
    }
    await bot.slack.idle();
    expect(textOf(updatesOf(h.fake, card).at(-1)!).match(new RegExp(`Declined by <@${BOB}>`, 'g'))).toHaveLength(3);
    expect(deleted).toEqual([]);
  });

  it('a forged Approve all naming a request of another message changes nothing', async () => {
    const { bot, deleted } = await boot();
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    const card = await batchCard(thread);
    await bot.slack.idle();
    const block = batchBlockOf(card);
    const value = String((latest(card).find((b) => b.block_id === block)!.elements as Block[])[0]!.value);
    const response = await bot.send.interaction(buttonClick({ ...card, ts: '1700000000.000999' }, ALICE, ACTION_IDS.batchApproveAll, { blockId: block, value }).payload);
    expect(response.status).toBe(200);
    await waitForEphemeral(h.fake, ALICE, 'does not belong to a request I know');
    // On the batch message itself, its calls and one more that names no request: refused as a whole.
    const { m } = JSON.parse(value) as { m: Array<[number, string]> };
    const padded = JSON.stringify({ m: [...m, [2_000_000_000, '0123456789abcdef']] });
    await bot.send.interaction(buttonClick(card, ALICE, ACTION_IDS.batchApproveAll, { blockId: block, value: padded }).payload);
    await h.fake.waitFor(() => h.fake.callsTo('chat.postEphemeral').filter((c) => c.args.user === ALICE).length === 2);
    await bot.slack.idle();
    expect(h.fake.callsTo('chat.postEphemeral').map((c) => String(c.args.text))).toEqual([expect.stringContaining('does not belong'), expect.stringContaining('does not belong')]);
    expect(deleted).toEqual([]);
    for (const id of memberIds(card)) expect((await bot.agent.findRequest(id))!.status).toBe('pending');
  });

  it('after a restart, a click on one call redraws the whole batch from its stored membership', async () => {
    const first = await boot();
    const thread = await mention(first.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    const card = await batchCard(thread);
    await first.bot.slack.idle();
    await first.bot.stop();
    const { bot, deleted } = await boot({}, [{ text: 'Finished with the records.' }]);
    const [a, b, c] = memberIds(card);
    await click(bot, card, ALICE, `approval:${a}`, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Waiting for 2 of 3 decisions');
    expect(textOf(updatesOf(h.fake, card).at(-1)!)).toContain(`Approved by <@${ALICE}>`);
    await click(bot, card, BOB, `approval:${b}`, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Waiting for 1 of 3 decisions');
    await click(bot, card, BOB, `approval:${c}`, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Finished with the records.');
    await waitForUpdate(h.fake, card, 'All decided: the run continues');
    expect(deleted).toHaveLength(3);
    expect(cardsIn(thread)).toHaveLength(1);
  });

  it('the inbox lists each call of a batch on its own, and deciding one from Home redraws the whole batch', async () => {
    const { bot, deleted } = await boot();
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    const card = await batchCard(thread);
    await bot.slack.idle();
    const [a, b, c] = memberIds(card);
    const before = h.fake.callsTo('views.publish').length;
    expect((await bot.send.event(appHomeOpenedEnvelope({ user: ALICE, channel: 'D0ALICE' }))).status).toBe(200);
    await h.fake.waitFor((x) => x.method === 'views.publish' && x.args.user_id === ALICE && h.fake.callsTo('views.publish').length > before);
    const home = h.fake.homeView(ALICE)!;
    const text = JSON.stringify(home.blocks);
    // Earlier tests of this file may have left requests waiting too; these three are listed each on its own.
    expect(text).toMatch(/\*Waiting for you\* \([3-9]\d*\)|\*Waiting for you\* \(\d{2,}\)/);
    for (const [i, id] of [a, b, c].entries()) {
      expect(text).toContain(`#${id} (call ${i + 1} of 3 on one card)`);
      expect((home.blocks as Block[]).some((x) => x.type === 'actions' && x.block_id === `approval:${id}`)).toBe(true);
    }
    const buttons = (home.blocks as Block[]).find((x) => x.block_id === `approval:${b}`)!;
    const approve = (buttons.elements as Block[]).find((e) => e.action_id === ACTION_IDS.inboxApprove)!;
    const res = await bot.send.interaction(homeClickPayload(home, ALICE, approve, buttons.block_id));
    expect(res.status).toBe(200);
    await waitForUpdate(h.fake, card, 'Waiting for 2 of 3 decisions');
    expect(textOf(updatesOf(h.fake, card).at(-1)!)).toContain(`Approved by <@${ALICE}>`);
    expect(deleted).toEqual([]);
    expect((await bot.agent.findRequest(b!))!.status).toBe('approved');
  });

  it('twelve parallel calls: two grouped cards ("part 1 of 2"), each Approve all decides its own part, both show what the run waits for', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `rec-${i + 1}`);
    const { bot, model, deleted } = await boot({}, [{ toolCalls: ids.map((id) => ({ toolName: 'delete_record', args: { id } })) }, { text: 'Finished with the records.' }]);
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete twelve' });
    await h.fake.waitFor(() => cardsIn(thread).length >= 2);
    await bot.slack.idle();
    const posted = cardsIn(thread);
    expect(posted).toHaveLength(2);
    const [one, two] = posted.map((call): PostedCard => ({ call, actionId: Number.NaN, ts: String(call.response?.ts), channel: CHANNEL, threadTs: thread.threadTs, blocks: blocksOf(call) }));
    expect(textOf(one!.call)).toContain('12 actions need approval (part 1 of 2)');
    expect(textOf(two!.call)).toContain('12 actions need approval (part 2 of 2)');
    expect(memberIds(one!)).toHaveLength(10);
    expect(memberIds(two!)).toHaveLength(2);

    await click(bot, one!, ALICE, batchBlockOf(one!), ACTION_IDS.batchApproveAll);
    await waitForUpdate(h.fake, one!, 'Waiting for 2 of 12 decisions');
    await waitForUpdate(h.fake, two!, 'Waiting for 2 of 12 decisions');
    await bot.slack.idle();
    expect(deleted).toEqual([]);
    await click(bot, two!, ALICE, batchBlockOf(two!), ACTION_IDS.batchApproveAll);
    await waitForText(h.fake, thread, 'Finished with the records.');
    await waitForUpdate(h.fake, one!, 'All decided: the run continues');
    await waitForUpdate(h.fake, two!, 'All decided: the run continues');
    expect(deleted).toHaveLength(12);
    expect(model.doStreamCalls).toHaveLength(2);
  });

  it('calls whose policy routes their cards elsewhere keep a card each (no batch card), routed as before', async () => {
    const { bot } = await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE], route: 'dm' } } });
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    await h.fake.waitFor(() => cardsIn(thread).length >= 3);
    await bot.slack.idle();
    expect(cardsIn(thread).map((c) => textOf(c)).every((t) => t.includes('Approval needed: Delete record'))).toBe(true);
    expect(h.fake.calls.filter((c) => c.method === 'chat.postMessage' && textOf(c).includes('actions need approval'))).toEqual([]);
    // Each card's copy went to the approver's DM.
    expect(h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel !== CHANNEL && textOf(c).includes('Approval needed: Delete record'))).toHaveLength(3);
  });

  it('a batch redraw that fails every retry is made good by the sweep: the card converges on every call decided', async () => {
    const { bot, deleted } = await boot();
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a, b and c' });
    const card = await batchCard(thread);
    await bot.slack.idle();
    h.fake.failNext('chat.update', { status: 500 }, 4);
    await click(bot, card, ALICE, batchBlockOf(card), ACTION_IDS.batchApproveAll);
    await waitForText(h.fake, thread, 'Finished with the records.');
    await bot.slack.idle();
    expect(deleted).toHaveLength(3);
    expect(updatesOf(h.fake, card).filter((c) => c.ok)).toEqual([]);

    // A minute on, the sweep finds the card showing less than its requests and redraws the batch, once.
    await sql`UPDATE pending_actions SET created_at = now() - interval '1 hour', decided_at = decided_at - interval '1 hour'`.execute(h.database.db);
    await bot.slack.sweepExpired();
    const redrawn = await h.fake.waitFor((c) => c.method === 'chat.update' && c.args.ts === card.ts && c.ok);
    expect(textOf(redrawn)).toContain('All decided: the run continues');
    expect(textOf(redrawn).match(new RegExp(`Approved by <@${ALICE}>`, 'g'))).toHaveLength(3);
    await bot.slack.idle();
    await bot.slack.sweepExpired();
    await bot.slack.idle();
    expect(updatesOf(h.fake, card).filter((c) => c.ok)).toHaveLength(1);
  });

  it('a continuation whose next step calls in parallel again posts a new batch card, decided on its own', async () => {
    const { bot, deleted } = await boot({}, [
      THREE[0]!,
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'rec-d' } }, { toolName: 'delete_record', args: { id: 'rec-e' } }] },
      { text: 'Finished with the records.' },
    ]);
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a to e' });
    const first = await batchCard(thread);
    await bot.slack.idle();
    await click(bot, first, ALICE, batchBlockOf(first), ACTION_IDS.batchApproveAll);
    const call = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, CHANNEL, thread.threadTs) && textOf(c).includes('2 actions need approval'));
    const second: PostedCard = { call, actionId: Number.NaN, ts: String(call.response?.ts), channel: CHANNEL, threadTs: thread.threadTs, blocks: blocksOf(call) };
    await bot.slack.idle();
    expect(deleted).toHaveLength(3);
    await click(bot, second, BOB, batchBlockOf(second), ACTION_IDS.batchApproveAll);
    await waitForText(h.fake, thread, 'Finished with the records.');
    expect(deleted.slice(3)).toEqual([{ id: 'rec-d' }, { id: 'rec-e' }]);
    expect(cardsIn(thread)).toHaveLength(2);
    // The first card stays its own batch, all decided; the second batch's calls are not drawn on it.
    const firstNow = textOf(updatesOf(h.fake, first).at(-1)!);
    expect(firstNow).toContain('All decided: the run continues');
    expect(firstNow).toContain('rec-a');
    expect(firstNow).not.toContain('rec-d');
  });
});
