import { beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { requestOf } from '../../src/agent/request.js';
import { createTool } from '../../src/agent/tool.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { createDemoTables, demoDb } from '../../src/demo/demo-tables.js';
import { createDeployServiceTool } from '../../src/demo/tools/deploy-service.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { renderCard } from '../../src/slack/card/render-card.js';
import { messageEnvelope, viewSubmissionPayload } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import {
  buttonClick,
  clickButton,
  freshTs,
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
  type AgentDeps,
} from '../helpers/slack-bot.js';
import { ALICE, CAROL, CHANNEL, REQUESTER } from '../helpers/test-workspace.js';

/** A refund whose details the person gives in the Respond form: titles, descriptions and a bare key. */
const refundDetails = createTool({
  id: 'refund_details',
  description: 'Asks how much to refund',
  inputSchema: z.object({ orderId: z.string() }),
  resumeSchema: z.object({
    refundAmount: z.number().meta({ title: 'Refund amount', description: 'In euros, at most the order total' }),
    notifyCustomer: z.boolean().describe('Tell the customer by email'),
    ticketId: z.string().optional(),
  }),
  execute: async (input: { orderId: string }, ctx) => {
    if (ctx.agent?.resumeData === undefined) return ctx.agent?.suspend({ question: `How much of order ${input.orderId} <!here> should I refund?` });
    return { refunded: ctx.agent.resumeData };
  },
});

describeOnOneBackend('Slack answers, Yes/No confirmations and the assistant on %s', (backend) => {
  const h = slackHarness(backend, { usergroupHandles: { S0FINANCE: 'finance' }, users: { [CAROL]: { name: 'carol.c', real_name: 'Carol C' } } });
  beforeAll(() => createDemoTables(h.database.db));

  async function boot(steps: ScriptStep[], options: { policy?: PolicyInput; assistant?: 'auto' | 'on' | 'off'; autoResume?: boolean } = {}) {
    const model = scriptedModel(steps);
    const { deleteRecord, deleted } = recordingDeleteTool();
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      ...(options.assistant ? { assistant: options.assistant } : {}),
      makeAgent: (deps: AgentDeps) =>
        new Agent({
          id: 'ops',
          model,
          tools: { deploy_service: createDeployServiceTool({ db: h.database.db }), refund_details: refundDetails, delete_record: deleteRecord },
          storage: h.database,
          policy: definePolicy(options.policy ?? {}),
          ...(options.autoResume ? { defaultOptions: { autoResumeSuspendedTools: true } } : {}),
          ...deps,
        }),
    });
    return { b: h.bot, model, deleted };
  }

  const deploy = (version: string): ScriptStep => ({ toolCalls: [{ toolName: 'deploy_service', args: { service: 'api', environment: 'production', version } }] });

  it('No on a deploy confirmation answers without a modal and the card says "Answered No", also when drawn again from storage after a restart', async () => {
    const { b, model } = await boot([deploy('v2.0.0'), { text: 'Not deployed.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'deploy api v2.0.0 to prod' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    expect(textOf(card.call)).toContain('Deploy api v2.0.0 to production?');

    await clickButton(b, card, REQUESTER, ACTION_IDS.suspensionNo);
    const updated = await waitForUpdate(h.fake, card, `Answered *No* by <@${REQUESTER}>`);
    expect(textOf(updated)).toContain('Deploy api v2.0.0 to production?');
    expect(textOf(updated)).not.toMatch(/Resumed/);
    await waitForText(h.fake, thread, 'Not deployed.');
    expect(h.fake.callsTo('views.open')).toEqual([]);
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { deployed: false, status: 'cancelled' } } });
    expect(await demoDb(h.database.db).selectFrom('demo_deployments').selectAll().where('version', '=', 'v2.0.0').execute()).toEqual([]);

    // Another process draws the card from the request row alone.
    await b.stop();
    h.bot = undefined;
    const { b: again } = await boot([]);
    const row = await again.agent.findRequest(card.actionId);
    const drawn = renderCard(again.agent, requestOf(row!), { blocked: false });
    expect(JSON.stringify(drawn.blocks)).toContain(`Answered *No* by <@${REQUESTER}>`);
  });

  it('a second click on Yes/No, or one from someone else, resumes nothing and is told why', async () => {
    const { b, model } = await boot([deploy('v3.0.0'), { text: 'Deployed api v3.0.0.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'deploy api v3.0.0 to prod' });
    const card = await waitForCard(h.fake, thread, 'suspension');

    await clickButton(b, card, ALICE, ACTION_IDS.suspensionYes);
    await waitForEphemeral(h.fake, ALICE, `Only <@${REQUESTER}> can answer this`);
    expect(updatesOf(h.fake, card)).toEqual([]);

    // A double click: both arrive at once; exactly one answer is taken.
    const yes = buttonClick(card, REQUESTER, ACTION_IDS.suspensionYes).payload;
    const no = buttonClick(card, REQUESTER, ACTION_IDS.suspensionNo).payload;
    const responses = await Promise.all([b.send.interaction(yes), b.send.interaction(no)]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    await waitForEphemeral(h.fake, REQUESTER, /already answered/);
    const answered = await waitForUpdate(h.fake, card, /Answered \*(Yes|No)\* by/);
    await b.slack.idle();
    expect(model.doStreamCalls).toHaveLength(2);
    const deployed = await demoDb(h.database.db).selectFrom('demo_deployments').selectAll().where('version', '=', 'v3.0.0').execute();
    expect(deployed).toHaveLength(textOf(answered).includes('*Yes*') ? 1 : 0);

    // Later, on the answered card: the same refusal, no second resume.
    await clickButton(b, card, REQUESTER, ACTION_IDS.suspensionYes);
    await waitForEphemeral(h.fake, REQUESTER, /This request was already answered by <@U0REQUESTER>\. Nothing was changed\./);
    await b.slack.idle();
    expect(model.doStreamCalls).toHaveLength(2);
  });

  it('the Respond modal repeats the question and labels fields from the schema; the card then lists label: value', async () => {
    const { b, model } = await boot([{ toolCalls: [{ toolName: 'refund_details', args: { orderId: '1042' } }] }, { text: 'Refunded.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    // Only the requester (or an approver of the tool) answers: nobody else gets the form.
    await clickButton(b, card, ALICE, ACTION_IDS.suspensionRespond);
    await waitForEphemeral(h.fake, ALICE, 'Only the person who started this run can answer this.');
    expect(h.fake.callsTo('views.open')).toEqual([]);
    await clickButton(b, card, REQUESTER, ACTION_IDS.suspensionRespond);
    const opened = await h.fake.waitFor('views.open');
    expect(opened.ok).toBe(true);
    const view = opened.args.view as { private_metadata: string; blocks: Array<{ type: string; block_id?: string; text?: { text: string }; label?: { text: string }; hint?: { text: string } }> };
    expect(view.blocks[0]!.text!.text).toContain('How much of order 1042 &lt;!here&gt; should I refund?');
    const inputs = view.blocks.filter((x) => x.type === 'input').map((x) => [x.block_id, x.label?.text, x.hint?.text]);
    expect(inputs).toEqual([
      ['refundAmount', 'Refund amount', 'In euros, at most the order total'],
      ['notifyCustomer', 'Tell the customer by email', undefined],
      ['ticketId', 'Ticket ID', undefined],
    ]);

    const submitted = await b.send.interaction(
      viewSubmissionPayload({
        user: REQUESTER,
        callbackId: CALLBACK_IDS.respondModal,
        privateMetadata: view.private_metadata,
        stateValues: {
          refundAmount: { value: { type: 'number_input', value: '12.5' } },
          notifyCustomer: { value: { type: 'radio_buttons', selected_option: { text: { type: 'plain_text', text: 'No' }, value: 'false' } } },
        },
      }),
    );
    expect(submitted.status).toBe(200);
    await waitForUpdate(h.fake, card, `Answered by <@${REQUESTER}>:\nRefund amount: 12.5\nTell the customer by email: No`);
    await waitForText(h.fake, thread, 'Refunded.');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { refunded: { refundAmount: 12.5, notifyCustomer: false } } } });
  });

  it('with auto-resume, a thread reply from someone who may not answer is told so privately, and answers nothing', async () => {
    const { b, model } = await boot([{ toolCalls: [{ toolName: 'refund_details', args: { orderId: '1042' } }] }, { text: 'Refunded.' }], { autoResume: true });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    await b.slack.idle();
    const posted = () => h.fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === thread.threadTs).length;
    const before = posted();
    const ts = freshTs();
    h.fake.seedMessage({ channel: CHANNEL, text: '12.5, no email', user: ALICE, ts, threadTs: thread.threadTs });
    await b.send.event(messageEnvelope({ channel: CHANNEL, user: ALICE, text: '12.5, no email', ts, threadTs: thread.threadTs }));
    await waitForEphemeral(h.fake, ALICE, `Only <@${REQUESTER}> can answer this.`);
    await b.slack.idle();
    expect(posted()).toBe(before);
    expect(await b.agent.findRequest(card.actionId)).toMatchObject({ status: 'pending' });
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('with SLACK_ASSISTANT on, the thread status names who must approve (no mention) and is cleared when the run goes on', async () => {
    h.fake.setUsergroup('S0FINANCE', [CAROL]);
    const { b, deleted } = await boot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'r1' } }] }, { text: 'Deleted r1.' }], {
      assistant: 'on',
      policy: { tools: { delete_record: { approvers: ['S0FINANCE', CAROL] } } },
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete r1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const waiting = await h.fake.waitFor((c) => c.method === 'assistant.threads.setStatus' && c.args.status !== '');
    expect(waiting.args).toMatchObject({ channel_id: CHANNEL, thread_ts: thread.threadTs, status: 'waiting for approval from @finance or @carol.c' });
    expect(waiting.at).toBeGreaterThanOrEqual(card.call.at);

    await clickButton(b, card, CAROL, ACTION_IDS.approve);
    // The continuation's answer is streamed too, to the requester.
    const answer = await h.fake.waitFor('chat.startStream');
    expect(answer.args).toMatchObject({ channel: CHANNEL, thread_ts: thread.threadTs, recipient_user_id: REQUESTER, markdown_text: 'Deleted r1.' });
    await b.slack.idle();
    expect(deleted).toEqual([{ id: 'r1' }]);
    // Cleared as the run goes on, before its answer, and once.
    const statuses = h.fake.callsTo('assistant.threads.setStatus');
    expect(statuses.map((c) => c.args.status)).toEqual(['waiting for approval from @finance or @carol.c', '']);
    expect(statuses[1]!.at).toBeLessThanOrEqual(answer.at);
    expect(h.fake.assistantStatus(CHANNEL, thread.threadTs)).toBe('');
  });

  it('with SLACK_ASSISTANT on, the answer is streamed (startStream → stopStream), Slack markup in it defused', async () => {
    const answer = 'Here is the **summary** for <!channel>: all good.';
    const { b } = await boot([{ text: answer }], { assistant: 'on' });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'summary please' });
    const stopped = await h.fake.waitFor('chat.stopStream');
    await b.slack.idle();
    const started = h.fake.callsTo('chat.startStream');
    expect(started).toHaveLength(1);
    expect(started[0]!.args).toMatchObject({ channel: CHANNEL, thread_ts: thread.threadTs, recipient_user_id: REQUESTER });
    const ts = String(started[0]!.response?.ts);
    expect(stopped.args).toMatchObject({ channel: CHANNEL, ts });
    expect(stopped.ok).toBe(true);
    const message = h.fake.message(CHANNEL, ts)!;
    expect(message.text).toBe('Here is the **summary** for <\u200b!channel>: all good.');
    expect(message.metadata).toMatchObject({ event_payload: { part: 0, parts: 1 } });
    expect(h.fake.isStreaming(CHANNEL, ts)).toBe(false);
    // Not posted a second time as an ordinary message.
    expect(h.fake.callsTo('chat.postMessage').filter((c) => textOf(c).includes('summary'))).toEqual([]);
  });

  it('auto streams in a DM thread with the app (no recipient needed there) and leaves channel threads to posted messages', async () => {
    const { b } = await boot([{ text: 'In the DM.' }, { text: 'In the channel.' }], { assistant: 'auto' });
    const DM = 'D0REQUESTER';
    const root = freshTs();
    h.fake.seedMessage({ channel: DM, text: 'start', user: REQUESTER, ts: root });
    const ts = freshTs();
    h.fake.seedMessage({ channel: DM, text: 'answer me', user: REQUESTER, ts, threadTs: root });
    expect((await b.send.event(messageEnvelope({ channel: DM, ts, threadTs: root, user: REQUESTER, text: 'answer me' }))).status).toBe(200);
    const stopped = await h.fake.waitFor('chat.stopStream');
    await b.slack.idle();
    const started = h.fake.callsTo('chat.startStream');
    expect(started.map((c) => [c.args.channel, c.args.thread_ts, c.args.recipient_user_id])).toEqual([[DM, root, undefined]]);
    expect(h.fake.message(DM, String(stopped.args.ts))!.text).toBe('In the DM.');

    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'and here?' });
    await waitForText(h.fake, thread, 'In the channel.');
    await b.slack.idle();
    expect(h.fake.callsTo('chat.startStream')).toHaveLength(1);
    expect(h.fake.callsTo('assistant.threads.setStatus').every((c) => c.args.channel_id === DM)).toBe(true);
  });

  it('off (the default) streams nothing and sets no status', async () => {
    const { b } = await boot([{ text: 'Plain answer.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'hi' });
    await waitForText(h.fake, thread, 'Plain answer.');
    await b.slack.idle();
    expect(h.fake.calls.filter((c) => c.method.startsWith('assistant.') || c.method.endsWith('Stream'))).toEqual([]);
  });

  it('falls back to the posted answer when chat.startStream is refused, and stops trying after unknown_method', async () => {
    h.fake.failNext('chat.startStream', { error: 'unknown_method' });
    const { b } = await boot([{ text: 'First answer.' }, { text: 'Second answer.' }], { assistant: 'on' });
    const first = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'one' });
    await waitForText(h.fake, first, 'First answer.');
    await b.slack.idle();
    const second = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'two' });
    await waitForText(h.fake, second, 'Second answer.');
    await b.slack.idle();
    expect(h.fake.callsTo('chat.startStream')).toHaveLength(1);
  });

  it('an answer whose stream fails midway is posted whole, and the half-streamed message is removed', async () => {
    h.fake.failNext('chat.stopStream', { error: 'invalid_arguments' });
    const { b } = await boot([{ text: 'The full answer, never lost.' }], { assistant: 'on' });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'go' });
    await waitForText(h.fake, thread, 'The full answer, never lost.');
    await b.slack.idle();
    const started = h.fake.callsTo('chat.startStream');
    expect(started).toHaveLength(1);
    const ts = String(started[0]!.response?.ts);
    expect(h.fake.message(CHANNEL, ts)).toBeUndefined();
    // invalid_arguments is about that call only: the next answer is streamed again.
    expect(h.fake.messages(CHANNEL, thread.threadTs).filter((m) => m.text.includes('The full answer'))).toHaveLength(1);
  });

  it('a status Slack refuses with missing_scope is not tried again by this process', async () => {
    h.fake.failNext('assistant.threads.setStatus', { error: 'missing_scope' });
    const { b } = await boot(
      [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'x1' } }] }, { toolCalls: [{ toolName: 'delete_record', args: { id: 'x2' } }] }],
      { assistant: 'on', policy: { tools: { delete_record: { approvers: [CAROL] } } } },
    );
    const first = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete x1' });
    await waitForCard(h.fake, first, 'approval');
    await b.slack.idle();
    const second = await mention(b, { user: REQUESTER, channel: 'C0OTHER01', text: 'delete x2' });
    await waitForCard(h.fake, second, 'approval');
    await b.slack.idle();
    expect(h.fake.callsTo('assistant.threads.setStatus')).toHaveLength(1);
  });
});
