/**
 * A card whose location could not be stored: chat.postMessage put it in Slack, then the database
 * connection dropped before the bot recorded where it went. The card still works, and it
 * converges like every other card (buttons gone and the decision shown once decided, found by
 * the sweep when nobody decides), never posted a second time: each card's message metadata names
 * its requests, and the bot finds it in the thread by them. The same for batch cards and for
 * copies routed to approvers.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { messageEnvelope, type RecordedCall } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { loseCardSaves } from '../helpers/lost-card-saves.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import {
  blocksOf,
  buttonClick,
  cardActions,
  clickButton,
  freshTs,
  inThread,
  mention,
  recordingDeleteTool,
  slackHarness,
  startBot,
  textOf,
  updatesOf,
  waitForCard,
  waitForEphemeral,
  waitForText,
  waitForUpdate,
  type Bot,
  type PostedCard,
} from '../helpers/slack-bot.js';
import { ALICE, BOB, CHANNEL, REQUESTER } from '../helpers/test-workspace.js';

const REPAIR_AFTER_MS = 1_000;
/** The DM the simulator opens with Alice (conversations.open). */
const ALICE_DM = `D${ALICE.slice(1)}`;
/** The requester's DM with the bot. */
const DM = `D${REQUESTER.slice(1)}`;

const deleteStep = (id: string): ScriptStep => ({ toolCalls: [{ toolName: 'delete_record', args: { id } }] });
const hasButtons = (call: RecordedCall) => JSON.stringify(call.args.blocks ?? '').includes('"type":"button"');
type Block = Record<string, any>;

describeOnOneBackend('cards whose location could not be stored, on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(steps: ScriptStep[], policy: PolicyInput = {}) {
    const { deleteRecord, deleted } = recordingDeleteTool();
    const model = scriptedModel(steps);
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      cardRepairAfterMs: REPAIR_AFTER_MS,
      makeAgent: (deps) => new Agent({ id: 'ops', instructions: 'test', model, tools: { delete_record: deleteRecord }, storage: h.database, policy: definePolicy(policy), ...deps }),
    });
    return { b: h.bot, deleted };
  }

  const logged = (b: Bot, pattern: RegExp) => b.logs.some((line) => pattern.test(line));
  async function untilLogged(b: Bot, pattern: RegExp) {
    for (let i = 0; i < 200 && !logged(b, pattern); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(logged(b, pattern), String(pattern)).toBe(true);
  }

  /** The card lost its row as the issue describes it: posted, and the connection gone before the save. */
  async function lostWhileSaving(b: Bot) {
    await untilLogged(b, /card posted but its location could not be stored/);
    const line = b.logs.find((l) => /card posted but its location could not be stored/.test(l))!;
    expect(line).toMatch(/terminating connection due to administrator command/);
  }

  /** A mention whose card is posted and then loses its row (the fault lifted again): the state the tests start from. */
  async function lostCard(b: Bot, text: string) {
    const lift = await loseCardSaves(h.database, backend);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text });
    const card = await waitForCard(h.fake, thread, 'approval');
    await lostWhileSaving(b);
    await lift();
    return { thread, card };
  }

  /** Every approval card (a card of its own or a batch) posted in the thread. */
  const cardsIn = (thread: { channel: string; threadTs: string }) =>
    h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, thread.channel, thread.threadTs) && blocksOf(c).some((x) => String(x.block_id ?? '').startsWith('approval:')));

  const cardRows = async (ids: number[]) =>
    (await sql<{ action_id: number; ts: string; batch: number[] | null; copies: Array<{ channel: string; ts: string }> }>`
      SELECT action_id, ts, batch, copies FROM slack_cards WHERE action_id = ANY(${ids}::integer[]) ORDER BY action_id`.execute(h.database.db)).rows;

  /** What the sweep finds a minute on: every change older than the repair delay. */
  async function ageEverything() {
    await sql`UPDATE pending_actions SET created_at = now() - interval '1 hour', decided_at = decided_at - interval '1 hour'`.execute(h.database.db);
  }

  async function sweep(b: Bot) {
    await b.slack.sweepExpired();
    await b.slack.idle();
  }

  it('the lost card\'s buttons still decide, and the decision redraws it in place; the sweep posts no second card', async () => {
    const { b, deleted } = await boot([deleteStep('u1'), { text: 'Deleted u1.' }]);
    const { thread, card } = await lostCard(b, 'delete u1');
    expect(await cardRows([card.actionId])).toEqual([]);

    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted u1.');
    const redrawn = await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    expect(hasButtons(redrawn)).toBe(false);
    expect((await cardRows([card.actionId])).map((r) => r.ts)).toEqual([card.ts]);

    await ageEverything();
    await sweep(b);
    await sweep(b);
    expect(cardsIn(thread)).toHaveLength(1);
    expect(updatesOf(h.fake, card).filter((c) => c.ok)).toHaveLength(1);
    expect(deleted).toEqual([{ id: 'u1' }]);
  });

  /**
   * A lost card Alice approves while Slack fails every retry of the thread's lookup: the call runs,
   * and the card is still as posted, with no row: what a sweep or a later click must make good.
   */
  async function decidedUnseen(id: string) {
    const { b, deleted } = await boot([deleteStep(id), { text: `Deleted ${id}.` }]);
    const { thread, card } = await lostCard(b, `delete ${id}`);
    h.fake.failNext('conversations.replies', { status: 500 }, 4);
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, `Deleted ${id}.`);
    await b.slack.idle();
    expect(deleted).toEqual([{ id }]);
    expect(updatesOf(h.fake, card)).toEqual([]);
    expect(await cardRows([card.actionId])).toEqual([]);
    return { b, deleted, thread, card };
  }

  it('decided while its thread could not be read, the lost card is found by the sweep and drawn decided, not posted again', async () => {
    const { b, thread, card } = await decidedUnseen('u2');

    await ageEverything();
    // The adoption's redraw is held at Slack, so the next sweep comes while the card is on record but
    // not yet drawn, as a sweep of another instance or the next interval can under load: the card is
    // the adoption's to draw, and that sweep leaves it alone.
    const release = h.fake.holdResponseNext('chat.update');
    await b.slack.sweepExpired();
    const redrawn = await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    expect(hasButtons(redrawn)).toBe(false);
    expect((await cardRows([card.actionId])).map((r) => r.ts)).toEqual([card.ts]);
    await b.slack.sweepExpired();
    release();
    await b.slack.idle();
    await sweep(b);
    expect(cardsIn(thread)).toHaveLength(1);
    expect(updatesOf(h.fake, card).filter((c) => c.ok)).toHaveLength(1);
    expect((await cardRows([card.actionId])).map((r) => r.ts)).toEqual([card.ts]);
  });

  it('a later click on a lost card decided already draws it decided, before any sweep', async () => {
    const { b, deleted, thread, card } = await decidedUnseen('u4');

    await clickButton(b, card, BOB, ACTION_IDS.approve);
    const redrawn = await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    expect(hasButtons(redrawn)).toBe(false);
    await b.slack.idle();
    expect(cardsIn(thread)).toHaveLength(1);
    expect(deleted).toEqual([{ id: 'u4' }]);
  });

  it('nobody decides: the sweep adopts the lost card instead of posting a second one, and a click then redraws it', async () => {
    const { b, deleted } = await boot([deleteStep('u3'), { text: 'Deleted u3.' }]);
    const { thread, card } = await lostCard(b, 'delete u3');

    await ageEverything();
    await sweep(b);
    expect(cardsIn(thread)).toHaveLength(1);
    expect((await cardRows([card.actionId])).map((r) => r.ts)).toEqual([card.ts]);
    expect(logged(b, /card adopted by the sweep/)).toBe(true);
    await sweep(b);
    expect(cardsIn(thread)).toHaveLength(1);

    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    const redrawn = await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    expect(hasButtons(redrawn)).toBe(false);
    await waitForText(h.fake, thread, 'Deleted u3.');
    expect(deleted).toEqual([{ id: 'u3' }]);
  });

  it('in a DM, where the card is at the top level, the sweep finds it in the history and adopts it', async () => {
    const { b, deleted } = await boot([deleteStep('d1'), { text: 'Deleted d1.' }]);
    const lift = await loseCardSaves(h.database, backend);
    // Something else of the bot's at the DM's top level, older, that the lookup must pass over.
    await b.slack.context.client.chat.postMessage({ channel: DM, text: 'An older message.' });
    await b.send.event(messageEnvelope({ channel: DM, ts: freshTs(), user: REQUESTER, text: 'delete d1' }));
    const call = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === DM && cardActions(blocksOf(c), 'approval') !== undefined);
    expect(call.args.thread_ts).toBeUndefined();
    const card: PostedCard = { call, actionId: Number(String(cardActions(blocksOf(call), 'approval')!.block_id).split(':')[1]), ts: String(call.response?.ts), channel: DM, threadTs: String(call.response?.ts), blocks: blocksOf(call) };
    await lostWhileSaving(b);
    await lift();

    await ageEverything();
    await sweep(b);
    const dmCards = () => h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === DM && cardActions(blocksOf(c), 'approval') !== undefined);
    expect(dmCards()).toHaveLength(1);
    expect((await cardRows([card.actionId])).map((r) => r.ts)).toEqual([card.ts]);
    // Read as Slack must be asked for it: metadata included, from shortly before the request.
    expect(h.fake.callsTo('conversations.history').at(-1)?.args).toMatchObject({ channel: DM, include_all_metadata: 'true', oldest: expect.stringMatching(/^\d+$/) });

    await clickButton(b, card, REQUESTER, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${REQUESTER}>`);
    await waitForText(h.fake, { channel: DM }, 'Deleted d1.');
    expect(deleted).toEqual([{ id: 'd1' }]);
  });

  describe('a batch card (one message for the parallel calls of a step)', () => {
    const TWO: ScriptStep[] = [
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'rec-a' } }, { toolName: 'delete_record', args: { id: 'rec-b' } }] },
      { text: 'Deleted both.' },
    ];

    async function lostBatch(b: Bot) {
      const lift = await loseCardSaves(h.database, backend);
      const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete a and b' });
      const call = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, thread.channel, thread.threadTs) && textOf(c).includes('actions need approval'));
      const card: PostedCard = { call, actionId: Number.NaN, ts: String(call.response?.ts), channel: thread.channel, threadTs: thread.threadTs, blocks: blocksOf(call) };
      await untilLogged(b, /batch card posted but its location could not be stored/);
      await lift();
      const members = card.blocks.flatMap((x) => (/^approval:\d+$/.test(String(x.block_id)) ? [Number(String(x.block_id).split(':')[1])] : []));
      expect(members).toHaveLength(2);
      expect(await cardRows(members)).toEqual([]);
      return { thread, card, members };
    }

    async function approveAll(b: Bot, card: PostedCard) {
      const block = card.blocks.find((x) => String(x.block_id).startsWith('batch:'));
      const button = (block?.elements as Block[] | undefined)?.find((e) => e.action_id === ACTION_IDS.batchApproveAll);
      expect(button).toBeDefined();
      const response = await b.send.interaction(buttonClick(card, ALICE, ACTION_IDS.batchApproveAll, { blockId: block!.block_id, value: button!.value }).payload);
      expect(response.status).toBe(200);
    }

    it('nobody decides: the sweep adopts the whole batch, posting no card of its own for any call; Approve all then works', async () => {
      const { b, deleted } = await boot(TWO);
      const { thread, card, members } = await lostBatch(b);

      await ageEverything();
      await sweep(b);
      expect(cardsIn(thread)).toHaveLength(1);
      expect(await cardRows(members)).toEqual(members.map((id) => expect.objectContaining({ action_id: id, ts: card.ts, batch: members })));

      await approveAll(b, card);
      await waitForText(h.fake, thread, 'Deleted both.');
      const last = updatesOf(h.fake, card).at(-1)!;
      expect(textOf(last)).toContain('All decided');
      expect(hasButtons(last)).toBe(false);
      expect(deleted).toEqual([{ id: 'rec-a' }, { id: 'rec-b' }]);
      await ageEverything();
      await sweep(b);
      expect(cardsIn(thread)).toHaveLength(1);
    });

    it('Approve all on the lost batch decides its calls, and the batch is drawn decided in place', async () => {
      const { b, deleted } = await boot(TWO);
      const { thread, card } = await lostBatch(b);

      await approveAll(b, card);
      await waitForText(h.fake, thread, 'Deleted both.');
      const redrawn = await waitForUpdate(h.fake, card, 'All decided');
      expect(hasButtons(redrawn)).toBe(false);
      expect(deleted).toEqual([{ id: 'rec-a' }, { id: 'rec-b' }]);
      await ageEverything();
      await sweep(b);
      expect(cardsIn(thread)).toHaveLength(1);
    });
  });

  describe('copies routed to the approvers', () => {
    const BY_DM: PolicyInput = { tools: { delete_record: { requireApproval: true, approvers: [ALICE], route: 'dm' } } };
    const copiesTo = (channel: string) => h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === channel && cardActions(blocksOf(c), 'approval') !== undefined);
    const asCard = (call: RecordedCall): PostedCard => ({ call, actionId: Number.NaN, ts: String(call.response?.ts), channel: String(call.args.channel), threadTs: String(call.response?.ts), blocks: blocksOf(call) });

    it('a lost card was never routed: the sweep adopts it and sends its copy, and the copy decides it', async () => {
      const { b, deleted } = await boot([deleteStep('r1'), { text: 'Deleted r1.' }], BY_DM);
      const { thread, card } = await lostCard(b, 'delete r1');
      await b.slack.idle();
      expect(copiesTo(ALICE_DM)).toEqual([]);

      await ageEverything();
      await sweep(b);
      expect(cardsIn(thread)).toHaveLength(1);
      const copies = copiesTo(ALICE_DM);
      expect(copies).toHaveLength(1);
      const copy = asCard(copies[0]!);
      expect((await cardRows([card.actionId]))[0]!.copies).toEqual([{ channel: ALICE_DM, ts: copy.ts, user: ALICE }]);

      await clickButton(b, copy, ALICE, ACTION_IDS.approve);
      await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
      await waitForUpdate(h.fake, copy, `Approved by <@${ALICE}>`);
      await waitForText(h.fake, thread, 'Deleted r1.');
      expect(deleted).toEqual([{ id: 'r1' }]);
    });

    it('a copy whose location could not be stored is recognised by its metadata when clicked: it decides, and is redrawn with the card', async () => {
      const { b, deleted } = await boot([deleteStep('r2'), { text: 'Deleted r2.' }], BY_DM);
      const lift = await loseCardSaves(h.database, backend, 'copies');
      const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete r2' });
      const card = await waitForCard(h.fake, thread, 'approval');
      const copy = asCard(await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === ALICE_DM));
      await untilLogged(b, /could not send an approver a copy by DM/);
      await lift();
      expect((await cardRows([card.actionId]))[0]!.copies).toEqual([]);

      await clickButton(b, copy, ALICE, ACTION_IDS.approve);
      await waitForText(h.fake, thread, 'Deleted r2.');
      await waitForUpdate(h.fake, copy, `Approved by <@${ALICE}>`);
      await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
      expect((await cardRows([card.actionId]))[0]!.copies).toEqual([{ channel: ALICE_DM, ts: copy.ts, user: ALICE }]);
      expect(deleted).toEqual([{ id: 'r2' }]);
    });

    it('a message that is not a copy of the card is still refused, after Slack was asked', async () => {
      const { b, deleted } = await boot([deleteStep('r3'), { text: 'Deleted r3.' }], BY_DM);
      const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete r3' });
      const card = await waitForCard(h.fake, thread, 'approval');
      await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === ALICE_DM);
      await b.slack.idle();
      // The card's buttons, clicked from a message of the bot's that is no copy of it (the "sent to" note).
      const note = await waitForText(h.fake, thread, ':outbox_tray:');
      await clickButton(b, card, ALICE, ACTION_IDS.approve, { messageTs: String(note.response?.ts) });
      await waitForEphemeral(h.fake, ALICE, 'does not belong to a request I know');
      await b.slack.idle();
      expect(deleted).toEqual([]);
      expect((await cardRows([card.actionId]))[0]!.copies).toHaveLength(1);
    });

    it('the copy of another request’s card is no copy of this one: clicked with this card’s buttons, it is refused and not recorded', async () => {
      const { b, deleted } = await boot([deleteStep('r4'), deleteStep('r5'), { text: 'Deleted.' }], BY_DM);
      const first = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete r4' });
      const card = await waitForCard(h.fake, first, 'approval');
      await h.fake.waitFor(() => copiesTo(ALICE_DM).length === 1);
      const second = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete r5' });
      const other = await waitForCard(h.fake, second, 'approval');
      await h.fake.waitFor(() => copiesTo(ALICE_DM).length === 2);
      await b.slack.idle();
      // The second request's DM copy carries card metadata, marked as a copy, naming that request only.
      const otherCopy = copiesTo(ALICE_DM)[1]!;
      await clickButton(b, card, ALICE, ACTION_IDS.approve, { channel: ALICE_DM, messageTs: String(otherCopy.response?.ts) });
      await waitForEphemeral(h.fake, ALICE, 'does not belong to a request I know');
      await b.slack.idle();
      expect(deleted).toEqual([]);
      expect((await cardRows([card.actionId]))[0]!.copies).toEqual([{ channel: ALICE_DM, ts: String(copiesTo(ALICE_DM)[0]!.response?.ts), user: ALICE }]);
      expect((await b.agent.findRequest(card.actionId))?.status).toBe('pending');
      expect((await b.agent.findRequest(other.actionId))?.status).toBe('pending');
    });
  });
});
