/**
 * Submissions and clicks whose values are not what the bot's own elements send: values of the
 * wrong type, values longer than the input allows, repeated or unknown options. Slack's UI never
 * sends these; a forged request does. Each is acknowledged at once (a 200 with an empty body, so
 * the modal closes and nothing hangs), answered "nothing was changed", and changes nothing; the
 * bot keeps working for the next, genuine, submission.
 */
import { expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import { createTool } from '../../src/agent/tool.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { attachMcpServers } from '../../src/mcp/attach-mcp-servers.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { blockActionsPayload, messageEnvelope, viewSubmissionPayload, type SlackSimulator } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { recordingRefundTool } from '../helpers/recording-refund-tool.js';
import { callLog, mcpServersClosedAfterEach, stdioTracker } from '../helpers/mcp.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import {
  blocksOf,
  cardActions,
  clickButton,
  freshTs,
  inThread,
  mention,
  recordingDeleteTool,
  slackHarness,
  startBot,
  textOf,
  waitForCard,
  waitForEphemeral,
  waitForText,
  waitForUpdate,
  type Bot,
  type PostedCard,
} from '../helpers/slack-bot.js';
import { CAROL, CHANNEL, DAVE, REQUESTER } from '../helpers/test-workspace.js';

const NOTHING_CHANGED = /cannot read, so nothing was changed/;

/** Values of every wrong type a text input's `value` (or any other element field) could be given. */
const WRONG_TYPES: Array<[string, unknown]> = [
  ['an object', { text: 'hello' }],
  ['a number', 42],
  ['a boolean', true],
  ['an array', ['a', 'b']],
];

/** A tool whose details come from the Respond form: a number, a yes/no and an optional text. */
const refundDetails = createTool({
  id: 'refund_details',
  description: 'Asks how much to refund',
  inputSchema: z.object({ orderId: z.string() }),
  resumeSchema: z.object({ refundAmount: z.number(), notifyCustomer: z.boolean(), ticketId: z.string().optional() }),
  execute: async (input: { orderId: string }, ctx) => {
    if (ctx.agent?.resumeData === undefined) return ctx.agent?.suspend({ question: `How much of order ${input.orderId} should I refund?` });
    return { refunded: ctx.agent.resumeData };
  },
});

const POLICY: PolicyInput = {
  tools: {
    // A reason is asked for, so Approve opens the approve-reason modal; Edit and Decline open theirs.
    issue_refund: { requireApproval: true, approvers: [CAROL, DAVE], requireReason: true },
    delete_record: { requireApproval: true, approvers: [CAROL, DAVE] },
  },
};

describeOnOneBackend('malformed and out-of-bounds submissions on %s', (backend) => {
  const h = slackHarness(backend);
  const attached = mcpServersClosedAfterEach();

  async function boot(steps: ScriptStep[]) {
    const { issueRefund, refunds } = recordingRefundTool();
    const { deleteRecord, deleted } = recordingDeleteTool();
    const model = scriptedModel(steps);
    let agent!: Agent;
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps) =>
        (agent = new Agent({
          id: 'ops',
          instructions: 'test',
          model,
          tools: { issue_refund: issueRefund, delete_record: deleteRecord, ask_user: askUserTool, refund_details: refundDetails },
          storage: h.database,
          policy: definePolicy(POLICY),
          ...deps,
        })),
    });
    return { b: h.bot, model, refunds, deleted, agent };
  }

  const errorLines = (b: Bot) => b.logs.filter((line) => /"level":50/.test(line));
  const refusedTo = (fake: SlackSimulator, user: string) => fake.callsTo('chat.postEphemeral').filter((c) => c.args.user === user && NOTHING_CHANGED.test(String(c.args.text)));

  /** A view_submission as Slack would send it, with `state.values` exactly as given (or no state at all). */
  function submit(b: Bot, user: string, callbackId: string, privateMetadata: string, values: Record<string, Record<string, unknown>> | 'no state') {
    const payload = viewSubmissionPayload({ user, callbackId, privateMetadata, stateValues: values === 'no state' ? {} : (values as never) });
    if (values === 'no state') delete (payload.view as Record<string, unknown>).state;
    return b.send.interaction(payload);
  }

  /** The submission was acknowledged with an empty body: the modal closed, no field error, no failure. */
  function expectClosed(response: { status: number; body: string }) {
    expect(response.status).toBe(200);
    expect(response.body).toBe('');
  }

  const buttonValue = (card: PostedCard) => String((cardActions(card.blocks, 'approval')!.elements as Array<{ value: string }>)[0]!.value);

  it('Decline, approve-reason and Edit: a value of any wrong type, or no state at all, is acknowledged, answered "nothing was changed" and changes nothing', async () => {
    const { b, refunds } = await boot([{ toolCalls: [{ toolName: 'issue_refund', args: { orderId: '1042', amountCents: 2500 } }] }, { text: 'Refund done.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await b.slack.idle();
    const meta = buttonValue(card);

    let sent = 0;
    for (const [what, bad] of WRONG_TYPES) {
      const text = (value: unknown) => ({ type: 'plain_text_input', value });
      const cases: Array<[string, Record<string, Record<string, unknown>>]> = [
        [CALLBACK_IDS.declineModal, { reason: { reason: text(bad) } }],
        [CALLBACK_IDS.approveReasonModal, { reason: { reason: text(bad) } }],
        [CALLBACK_IDS.editModal, { f0: { value: text(bad) }, f1: { value: { type: 'number_input', value: '2000' } } }],
        [CALLBACK_IDS.editModal, { f0: { value: text('1042') }, f1: { value: { type: 'number_input', value: bad } } }],
      ];
      for (const [callbackId, values] of cases) {
        expectClosed(await submit(b, CAROL, callbackId, meta, values));
        sent += 1;
        expect(errorLines(b), `${callbackId} with ${what}`).toEqual([]);
      }
    }
    // No state at all, and an element whose state is not an object.
    for (const callbackId of [CALLBACK_IDS.declineModal, CALLBACK_IDS.approveReasonModal, CALLBACK_IDS.editModal]) {
      expectClosed(await submit(b, CAROL, callbackId, meta, 'no state'));
      expectClosed(await submit(b, CAROL, callbackId, meta, { reason: { reason: 'x' as never }, f0: { value: 7 } }));
      sent += 2;
    }
    await b.slack.idle();
    expect(refusedTo(h.fake, CAROL)).toHaveLength(sent);
    // Each answer is beside the card, in its thread.
    expect(refusedTo(h.fake, CAROL).every((c) => inThread(c, CHANNEL, thread.threadTs))).toBe(true);
    expect(errorLines(b)).toEqual([]);
    expect(b.logs.some((line) => line.includes('view submission refused: its values do not parse'))).toBe(true);
    expect(await b.agent.findRequest(card.actionId)).toMatchObject({ status: 'pending', approvals: [], args: { orderId: '1042', amountCents: 2500 } });
    expect(h.fake.callsTo('chat.update')).toEqual([]);
    expect(refunds).toEqual([]);

    // The same modal, submitted as Slack would, still approves.
    expectClosed(await submit(b, CAROL, CALLBACK_IDS.approveReasonModal, meta, { reason: { reason: { type: 'plain_text_input', value: 'Customer called' } } }));
    await waitForUpdate(h.fake, card, `Approved by <@${CAROL}>`);
    await waitForText(h.fake, thread, 'Refund done.');
    expect(refunds).toEqual([{ orderId: '1042', amountCents: 2500 }]);
  });

  it('a reason or an argument longer than its input allows is refused, never cut; one of exactly the limit is kept whole', async () => {
    const { b, refunds } = await boot([{ toolCalls: [{ toolName: 'issue_refund', args: { orderId: '1042', amountCents: 2500 } }] }, { text: 'Refund done.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await b.slack.idle();
    const meta = buttonValue(card);
    const text = (value: string) => ({ type: 'plain_text_input', value });

    expectClosed(await submit(b, CAROL, CALLBACK_IDS.declineModal, meta, { reason: { reason: text('n'.repeat(3001)) } }));
    expectClosed(await submit(b, CAROL, CALLBACK_IDS.approveReasonModal, meta, { reason: { reason: text('y'.repeat(1_000_000)) } }));
    expectClosed(await submit(b, CAROL, CALLBACK_IDS.approveReasonModal, meta, { reason: { reason: text('y'.repeat(3001)) } }));
    expectClosed(
      await submit(b, CAROL, CALLBACK_IDS.editModal, meta, {
        f0: { value: text('1042') },
        f1: { value: { type: 'number_input', value: '2000' } },
        f2: { value: text('z'.repeat(3001)) },
      }),
    );
    await b.slack.idle();
    expect(refusedTo(h.fake, CAROL)).toHaveLength(4);
    expect(await b.agent.findRequest(card.actionId)).toMatchObject({ status: 'pending', approvals: [] });
    expect(refunds).toEqual([]);

    const whole = `${'r'.repeat(2999)}!`;
    expectClosed(await submit(b, CAROL, CALLBACK_IDS.approveReasonModal, meta, { reason: { reason: text(whole) } }));
    await waitForText(h.fake, thread, 'Refund done.');
    const approved = await b.agent.findRequest(card.actionId);
    expect(approved!.approvals.map((a) => a.reason)).toEqual([whole]);
  });

  it('Decline all: a reason of the wrong type or too long is refused; every call stays pending, and Approve all still works', async () => {
    const { b, deleted } = await boot([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'rec-a' } }, { toolName: 'delete_record', args: { id: 'rec-b' } }] },
      { text: 'Both deleted.' },
    ]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete a and b' });
    const call = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, CHANNEL, thread.threadTs) && textOf(c).includes('actions need approval'));
    const ts = String(call.response?.ts);
    await b.slack.idle();
    const all = blocksOf(call).find((x) => String(x.block_id).startsWith('batch:'))!;
    const declineAll = (all.elements as Array<{ action_id: string; value: string }>).find((e) => e.action_id === ACTION_IDS.batchDeclineAll)!;
    // The modal's metadata is the button's value and the message it was on (batch-decline-modal.ts).
    const meta = JSON.stringify({ ...(JSON.parse(declineAll.value) as object), c: CHANNEL, t: ts });
    const ids = (JSON.parse(declineAll.value) as { m: Array<[number, string]> }).m.map(([id]) => id);

    for (const [, bad] of WRONG_TYPES) expectClosed(await submit(b, CAROL, CALLBACK_IDS.batchDeclineModal, meta, { reason: { reason: { type: 'plain_text_input', value: bad } } }));
    expectClosed(await submit(b, CAROL, CALLBACK_IDS.batchDeclineModal, meta, { reason: { reason: { type: 'plain_text_input', value: 'n'.repeat(3001) } } }));
    await b.slack.idle();
    expect(refusedTo(h.fake, CAROL)).toHaveLength(WRONG_TYPES.length + 1);
    expect(errorLines(b)).toEqual([]);
    for (const id of ids) expect((await b.agent.findRequest(id))?.status).toBe('pending');

    const approveAll = (all.elements as Array<{ action_id: string; value: string }>).find((e) => e.action_id === ACTION_IDS.batchApproveAll)!;
    const clicked = await b.send.interaction(
      blockActionsPayload({ user: CAROL, channel: CHANNEL, messageTs: ts, threadTs: thread.threadTs, actionId: ACTION_IDS.batchApproveAll, blockId: String(all.block_id), value: approveAll.value }),
    );
    expect(clicked.status).toBe(200);
    await waitForText(h.fake, thread, 'Both deleted.');
    expect(deleted).toHaveLength(2);
  });

  it('Respond: a number, a choice or a text of the wrong type, or a text too long, is refused; the form then answers', async () => {
    const { b, model } = await boot([{ toolCalls: [{ toolName: 'refund_details', args: { orderId: '77' } }] }, { text: 'Details noted.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 77' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    await b.slack.idle();
    const meta = JSON.stringify({ a: card.actionId });
    const good = {
      refundAmount: { value: { type: 'number_input', value: '12.5' } },
      notifyCustomer: { value: { type: 'radio_buttons', selected_option: { text: { type: 'plain_text', text: 'Yes' }, value: 'true' } } },
    };
    const bad: Array<Record<string, Record<string, unknown>>> = [
      { ...good, refundAmount: { value: { type: 'number_input', value: 12.5 } } },
      { ...good, notifyCustomer: { value: { type: 'radio_buttons', selected_option: 'true' } } },
      { ...good, notifyCustomer: { value: { type: 'radio_buttons', selected_option: { value: true } } } },
      { ...good, ticketId: { value: { type: 'plain_text_input', value: { id: 'T-1' } } } },
      { ...good, ticketId: { value: { type: 'plain_text_input', value: 't'.repeat(3001) } } },
    ];
    for (const values of bad) expectClosed(await submit(b, REQUESTER, CALLBACK_IDS.respondModal, meta, values));
    await b.slack.idle();
    expect(refusedTo(h.fake, REQUESTER)).toHaveLength(bad.length);
    expect(errorLines(b)).toEqual([]);
    expect((await b.agent.findRequest(card.actionId))?.status).toBe('pending');

    expectClosed(await submit(b, REQUESTER, CALLBACK_IDS.respondModal, meta, { ...good, ticketId: { value: { type: 'plain_text_input', value: 'T-1' } } }));
    await waitForText(h.fake, thread, 'Details noted.');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { refunded: { refundAmount: 12.5, notifyCustomer: true, ticketId: 'T-1' } } } });
  });

  it('askUser: repeated, too many or wrongly typed selections are refused, a free-text reply over the limit does not fit; the answer is exactly what was chosen', async () => {
    const { b, model } = await boot([
      { toolCalls: [{ toolName: 'ask_user', args: { question: 'Which services?', options: [{ label: 'api' }, { label: 'web' }, { label: 'worker' }], selectionMode: 'multi_select' } }] },
      { toolCalls: [{ toolName: 'ask_user', args: { question: 'What should the release be called?' } }] },
      { text: 'Named it.' },
    ]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'restart services' });
    const card = await waitForCard(h.fake, thread, 'question');
    await b.slack.idle();
    const actions = cardActions(card.blocks, 'question')!;
    const submitButton = (actions.elements as Array<{ action_id: string; value?: string }>).find((e) => e.action_id === ACTION_IDS.questionSubmit)!;
    const submitChoices = (selected: unknown) =>
      b.send.interaction(
        blockActionsPayload({
          user: REQUESTER,
          channel: card.channel,
          messageTs: card.ts,
          threadTs: card.threadTs,
          actionId: ACTION_IDS.questionSubmit,
          blockId: String(actions.block_id),
          value: submitButton.value!,
          state: { values: { [String(actions.block_id)]: { [ACTION_IDS.questionAnswer]: { type: 'checkboxes', selected_options: selected } as never } } },
        }),
      );
    const opt = (value: unknown) => ({ text: { type: 'plain_text' as const, text: String(value) }, value: value as string });

    const refusals: unknown[] = [
      [opt('0'), opt('0')],
      Array.from({ length: 10_000 }, () => opt('0')),
      [opt(0)],
      opt('0'),
      'api',
    ];
    for (const selected of refusals) expect((await submitChoices(selected)).status).toBe(200);
    // The element acted on itself carries a value of the wrong type.
    const clicked = blockActionsPayload({
      user: REQUESTER,
      channel: card.channel,
      messageTs: card.ts,
      threadTs: card.threadTs,
      actionId: ACTION_IDS.questionAnswer,
      blockId: String(actions.block_id),
      actionType: 'radio_buttons',
      selectedOption: opt('1'),
    });
    ((clicked.actions as Array<Record<string, unknown>>)[0]!.selected_option as Record<string, unknown>).value = { index: 1 };
    expect((await b.send.interaction(clicked)).status).toBe(200);
    await b.slack.idle();
    expect(refusedTo(h.fake, REQUESTER)).toHaveLength(refusals.length + 1);
    expect(errorLines(b)).toEqual([]);
    expect(model.doStreamCalls).toHaveLength(1);
    expect((await b.agent.findRequest(card.actionId))?.status).toBe('pending');

    // An option the question does not have is refused as a button that is not this card's.
    expect((await submitChoices([opt('7')])).status).toBe(200);
    await waitForEphemeral(h.fake, REQUESTER, 'does not belong to a request');

    expect((await submitChoices([opt('0'), opt('2')])).status).toBe(200);
    await waitForUpdate(h.fake, card, 'api, worker');
    await waitForCard(h.fake, thread, 'question', 1);
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { content: 'User answered: api, worker', isError: false } } });

    // A free-text answer is held to the same bound as any text input.
    const reply = (text: string) => b.send.event(messageEnvelope({ channel: CHANNEL, ts: freshTs(), threadTs: thread.threadTs, user: REQUESTER, text }));
    await reply('q'.repeat(3001));
    await waitForEphemeral(h.fake, REQUESTER, 'That answer does not fit');
    await b.slack.idle();
    expect(model.doStreamCalls).toHaveLength(2);
    await reply('Blue Falcon');
    await waitForText(h.fake, thread, 'Named it.');
    expect(lastToolResults(model).at(-1)).toMatchObject({ output: { value: { content: 'User answered: Blue Falcon', isError: false } } });
  });

  it('an MCP server’s form: a number, a date or a choice of the wrong type (modal or card) is refused; the server gets only the genuine answer', async () => {
    const log = callLog();
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'tracker__triage_issue', args: { id: 7 } }] },
      { text: 'Triage recorded.' },
      { toolCalls: [{ toolName: 'tracker__set_priority', args: { id: 1 } }] },
      { text: 'Priority set.' },
    ]);
    let agent!: Agent;
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps) => (agent = new Agent({ id: 'ops', model, storage: h.database, policy: definePolicy({ tools: { 'tracker.*': { requireApproval: false } } }), ...deps })),
    });
    const b = h.bot;
    attached.push(await attachMcpServers(agent, [stdioTracker(log.path)], { logger: agent.runtime.logger, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } }));

    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'triage 7' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    await b.slack.idle();
    const meta = JSON.stringify({ a: card.actionId });
    const good = {
      f0: { value: { type: 'radio_buttons', selected_option: { value: '1' } } },
      f1: { value: { type: 'number_input', value: '3' } },
      f2: { value: { type: 'datepicker', selected_date: '2026-12-24' } },
      f3: { value: { type: 'radio_buttons', selected_option: { value: 'false' } } },
    };
    const bad: Array<Record<string, Record<string, unknown>>> = [
      { ...good, f1: { value: { type: 'number_input', value: 3 } } },
      { ...good, f2: { value: { type: 'datepicker', selected_date: 20261224 } } },
      { ...good, f2: { value: { type: 'datepicker', selected_date: '2026-99-99' } } },
      { ...good, f0: { value: { type: 'radio_buttons', selected_option: { value: ['1'] } } } },
      { ...good, f3: { value: { type: 'radio_buttons', selected_option: false } } },
    ];
    for (const values of bad) expectClosed(await submit(b, REQUESTER, CALLBACK_IDS.elicitationModal, meta, values));
    await b.slack.idle();
    expect(refusedTo(h.fake, REQUESTER)).toHaveLength(bad.length);
    expect(errorLines(b)).toEqual([]);
    expect(log.lines()).toEqual([]);

    expectClosed(await submit(b, REQUESTER, CALLBACK_IDS.elicitationModal, meta, good));
    await waitForText(h.fake, thread, 'Triage recorded.');
    expect(log.lines()).toHaveLength(1);
    expect(JSON.parse(log.lines()[0]!.replace('triage_issue 7 accept ', ''))).toEqual({ severity: 'high', estimate: 3, due: '2026-12-24', notify: false });

    // The one inline field of a card: its element's value of the wrong type.
    const second = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'prioritise 1' });
    const inline = await waitForCard(h.fake, second, 'suspension');
    await b.slack.idle();
    const field = inline.blocks.find((x) => x.block_id === `elicitation-field:${inline.actionId}`)!;
    const pick = (value: unknown) => {
      const payload = blockActionsPayload({
        user: REQUESTER,
        channel: inline.channel,
        messageTs: inline.ts,
        threadTs: inline.threadTs,
        actionId: ACTION_IDS.elicitationValue,
        blockId: String(field.block_id),
        actionType: 'radio_buttons',
        selectedOption: { text: { type: 'plain_text', text: 'p1' }, value: '0' },
      });
      ((payload.actions as Array<Record<string, unknown>>)[0]!.selected_option as Record<string, unknown>).value = value;
      return b.send.interaction(payload);
    };
    for (const value of [0, null, { v: '0' }]) expect((await pick(value)).status).toBe(200);
    await b.slack.idle();
    expect(refusedTo(h.fake, REQUESTER)).toHaveLength(bad.length + 3);
    expect(log.lines()).toHaveLength(1);
    expect((await pick('0')).status).toBe(200);
    await waitForText(h.fake, second, 'Priority set.');
    expect(log.lines()[1]).toBe('set_priority 1 accept {"priority":"p1"}');
  });

  it('a click whose button value, action id or a modal whose callback id is not text is refused the same way, before any listener is chosen', async () => {
    const { b, refunds } = await boot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'rec-z' } }] }, { text: 'Deleted.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete z' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await b.slack.idle();
    for (const [, bad] of WRONG_TYPES) {
      const response = await clickButton(b, card, CAROL, ACTION_IDS.approve, { value: bad as never });
      expect(response.body).toBe('');
    }
    // Bolt matches listeners by calling string methods on these ids: they are parsed before it does.
    const click = blockActionsPayload({ user: CAROL, channel: CHANNEL, messageTs: card.ts, threadTs: card.threadTs, actionId: ACTION_IDS.approve, value: buttonValue(card) });
    (click.actions as Array<Record<string, unknown>>)[0]!.action_id = 5;
    expect(await b.send.interaction(click)).toMatchObject({ status: 200, body: '' });
    const view = viewSubmissionPayload({ user: CAROL, callbackId: CALLBACK_IDS.declineModal, privateMetadata: buttonValue(card), stateValues: {} });
    (view.view as Record<string, unknown>).callback_id = { id: CALLBACK_IDS.declineModal };
    expect(await b.send.interaction(view)).toMatchObject({ status: 200, body: '' });
    await b.slack.idle();
    expect(refusedTo(h.fake, CAROL)).toHaveLength(WRONG_TYPES.length + 2);
    expect(errorLines(b)).toEqual([]);
    expect((await b.agent.findRequest(card.actionId))?.status).toBe('pending');
    await clickButton(b, card, CAROL, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted.');
    expect(refunds).toEqual([]);
  });
});
