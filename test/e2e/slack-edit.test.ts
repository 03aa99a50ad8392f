import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { newTriggerId, viewSubmissionPayload, type RecordedCall } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { viewText } from '../helpers/home-view.js';
import { recordingRefundTool } from '../helpers/recording-refund-tool.js';
import { lastToolResults, scriptedModel } from '../helpers/scripted-model.js';
import {
  blocksOf,
  cardActions,
  clickButton,
  mention,
  slackHarness,
  startBot,
  textOf,
  waitForCard,
  waitForEphemeral,
  waitForText,
  waitForUpdate,
  type AgentDeps,
  type Bot,
  type PostedCard,
} from '../helpers/slack-bot.js';
import { BOB, CAROL, CHANNEL, DAVE, MALLORY, REQUESTER } from '../helpers/test-workspace.js';

/** BOB is finance: only he approves refunds above 1,200.00; CAROL and DAVE approve smaller ones. */
const policy = (extra: Record<string, unknown> = {}): PolicyInput => ({
  tools: {
    issue_refund: {
      requireApproval: true,
      approvers: [BOB, CAROL, DAVE],
      ...extra,
      rules: [{ when: { arg: 'amountCents', op: 'gt', value: 120000 }, then: { approvers: [BOB] } }],
    },
  },
});

describeOnOneBackend('Slack: edit, then approve, on %s', (backend) => {
  const h = slackHarness(backend);

  function refundAgent(deps: AgentDeps, amountCents: number, p: PolicyInput) {
    const { issueRefund, refunds } = recordingRefundTool();
    // By the prompt, not by turn: a restarted process's model must pick up where the run is.
    const model = scriptedModel([
      (call) =>
        call.prompt.some((m) => m.role === 'tool')
          ? { text: 'Refund done.' }
          : { toolCalls: [{ toolName: 'issue_refund', args: { orderId: '1042', amountCents } }] },
    ]);
    const agent = new Agent({ id: 'ops', instructions: 'test', model, tools: { issue_refund: issueRefund }, storage: h.database, policy: definePolicy(p), ...deps });
    return { agent, model, refunds };
  }

  async function boot(amountCents: number, p: PolicyInput = policy()) {
    let made!: ReturnType<typeof refundAgent>;
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps) => {
        made = refundAgent(deps, amountCents, p);
        return made.agent;
      },
    });
    return { b: h.bot, made: () => made };
  }

  /** Clicks Edit as `user` and returns the modal that opened. */
  async function openEditModal(b: Bot, card: PostedCard, user: string) {
    const before = h.fake.callsTo('views.open').length;
    await clickButton(b, card, user, ACTION_IDS.edit);
    await h.fake.waitFor((c) => c.method === 'views.open' && h.fake.callsTo('views.open').length > before);
    const opened = h.fake.callsTo('views.open').at(-1)!;
    return opened.args.view as { private_metadata: string; callback_id: string; blocks: Array<Record<string, any>> };
  }

  function submitEdit(b: Bot, user: string, view: { private_metadata: string }, amount: string) {
    return b.send.interaction(
      viewSubmissionPayload({
        user,
        callbackId: CALLBACK_IDS.editModal,
        privateMetadata: view.private_metadata,
        stateValues: {
          f0: { value: { type: 'plain_text_input', value: '1042' } },
          f1: { value: { type: 'number_input', value: amount } },
          f2: { value: { type: 'plain_text_input', value: null } },
        },
      }),
    );
  }

  /** The card as last drawn (its latest chat.update, else the post). */
  function latest(card: PostedCard): RecordedCall {
    return h.fake.callsTo('chat.update').filter((c) => c.args.ts === card.ts).at(-1) ?? card.call;
  }
  function asCard(card: PostedCard, call: RecordedCall): PostedCard {
    const actions = cardActions(blocksOf(call), 'approval');
    return { ...card, call, blocks: blocksOf(call), actionId: actions ? Number(String(actions.block_id).split(':')[1]) : Number.NaN };
  }

  it('edit then approve: the modal is prefilled, the tool runs once with the edited arguments, the card says what changed', async () => {
    const { b, made } = await boot(100000);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const buttons = cardActions(card.blocks, 'approval')!.elements as Array<Record<string, unknown>>;
    expect(buttons.map((e) => e.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.edit, ACTION_IDS.decline, ACTION_IDS.showArguments]);

    const view = await openEditModal(b, card, CAROL);
    expect(view.callback_id).toBe(CALLBACK_IDS.editModal);
    const inputs = view.blocks.filter((x) => x.type === 'input');
    expect(inputs.map((x) => [x.label.text, x.element.type, x.optional])).toEqual([
      ['Order to refund', 'plain_text_input', false],
      ['Amount (cents)', 'number_input', false],
      ['Note', 'plain_text_input', true],
    ]);
    // Labelled as the card labels it; the description, all said by the label, is not repeated as a hint.
    expect(inputs[0]!.hint).toBeUndefined();
    expect(inputs[0]!.element.initial_value).toBe('1042');
    expect(inputs[1]!.element.initial_value).toBe('100000');

    const submitted = await submitEdit(b, CAROL, view, '80000');
    expect(submitted.status).toBe(200);
    expect(submitted.body).toBe('');
    const approved = await waitForUpdate(h.fake, card, `Approved by <@${CAROL}>`);
    expect(textOf(approved)).toContain(`Edited by <@${CAROL}>: Amount $1,000.00 → $800.00`);
    await waitForText(h.fake, thread, 'Refund done.');
    expect(made().refunds).toEqual([{ orderId: '1042', amountCents: 80000 }]);
    const note = (lastToolResults(made().model)[0] as { output: { value: string } }).output.value;
    expect(note).toContain(`An approver (${CAROL}) changed the arguments before approving: amountCents 100000 → 80000`);

    const events = await sql<{ event: string; detail: Record<string, unknown> | null }>`
      SELECT event, detail FROM audit_events WHERE tool_name = 'issue_refund' AND run_id = (
        SELECT run_id FROM pending_actions WHERE id = ${card.actionId}) ORDER BY id`.execute(h.database.db);
    expect(events.rows.map((e) => e.event)).toEqual(['requested', 'edited', 'approved', 'consumed', 'executed']);
    expect(events.rows[1]!.detail).toMatchObject({ proposedArgs: { orderId: '1042', amountCents: 100000 }, editedArgs: { orderId: '1042', amountCents: 80000 }, editor: CAROL });
    expect(events.rows[4]!.detail).toMatchObject({ args: { orderId: '1042', amountCents: 80000 } });
  });

  it('the inbox tells an edited request from the one that took its place: who edited it, which request goes on, what changed', async () => {
    const { b } = await boot(100000);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await submitEdit(b, CAROL, await openEditModal(b, card, CAROL), '80000');
    const approved = asCard(card, await waitForUpdate(h.fake, card, `Approved by <@${CAROL}>`));
    const edited = Number(/Request #(\d+)/.exec(textOf(approved.call))?.[1]);
    expect(edited).toBeGreaterThan(card.actionId);
    await waitForText(h.fake, thread, 'Refund done.');

    const command = async (user: string, text: string) => {
      const before = h.fake.callsTo('response_url').length;
      await b.send.command({ command: '/approvals', text, user, channel: CHANNEL, responseUrl: h.fake.responseUrl({ channel: CHANNEL, user }) });
      await h.fake.waitFor(() => h.fake.callsTo('response_url').length > before);
      return viewText({ blocks: (h.fake.callsTo('response_url')[before]!.args.blocks ?? []) as unknown[] });
    };
    const mine = await command(REQUESTER, '');
    // Not a bare "— edited" row: who edited it and the request it goes on as; the new one in words, approved.
    expect(mine).toMatch(new RegExp(`#${card.actionId} · <[^>]+> — :pencil2: edited by <@${CAROL}> <!date\\^[^>]+>; it goes on as #${edited}`));
    expect(mine).toMatch(new RegExp(`#${edited} · <[^>]+> — :white_check_mark: approved by <@${CAROL}> <!date\\^[^>]+> \\(edited by <@${CAROL}>\\)`));
    expect(mine).not.toMatch(/— edited\b/);
    const carols = await command(CAROL, '');
    expect(carols).toMatch(new RegExp(`#${card.actionId} · <[^>]+> — :pencil2: edited by <@${CAROL}>[^\n]*; it goes on as #${edited} \\(requested by <@${REQUESTER}>\\)`));
    // One request in full: its arguments as the card's fields, and what the edit changed.
    const one = await command(REQUESTER, String(edited));
    expect(one).toContain('*Order to refund* 1042 · *Amount* $800.00');
    expect(one).toContain(`:pencil2: Edited by <@${CAROL}>: Amount $1,000.00 → $800.00`);
    expect(one).not.toContain('{"');
  });

  it('an edit declined by the approver it then needed: the model is told who changed what, who declined, in their words', async () => {
    const { b, made } = await boot(100000);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await submitEdit(b, CAROL, await openEditModal(b, card, CAROL), '150000');
    // Above 1,200.00 only Bob may approve: the edited request waits for him.
    const edited = asCard(card, await waitForUpdate(h.fake, card, `Edited by <@${CAROL}>`));
    expect(edited.actionId).toBeGreaterThan(card.actionId);
    const triggerId = newTriggerId();
    await clickButton(b, edited, BOB, ACTION_IDS.decline, { triggerId });
    const modal = (await h.fake.waitFor((c) => c.method === 'views.open' && c.args.trigger_id === triggerId)).args.view as { private_metadata: string };
    await b.send.interaction(viewSubmissionPayload({ user: BOB, callbackId: CALLBACK_IDS.declineModal, privateMetadata: modal.private_metadata, stateValues: { reason: { reason: 'done' } } }));
    await waitForUpdate(h.fake, card, `Declined by <@${BOB}>: done`);
    await waitForText(h.fake, thread, 'Refund done.');
    expect(made().refunds).toEqual([]);
    expect(lastToolResults(made().model)).toEqual([
      expect.objectContaining({
        output: {
          type: 'execution-denied',
          reason: `Tool call declined by ${BOB}; issue_refund did not run. An approver (${CAROL}) had changed its arguments before it was declined: amountCents 100000 → 150000. Their reason, in their own words: "done".`,
        },
      }),
    ]);
  });

  it('quorum 2: the run waits for a second approver of the new arguments; the old buttons are refused', async () => {
    const { b, made } = await boot(100000, policy({ quorum: 2 }));
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const view = await openEditModal(b, card, CAROL);
    await submitEdit(b, CAROL, view, '90000');
    const redrawn = await waitForUpdate(h.fake, card, '1 of 2 approvals');
    expect(textOf(redrawn)).toContain(`Edited by <@${CAROL}>`);
    const edited = asCard(card, redrawn);
    expect(edited.actionId).toBeGreaterThan(card.actionId);

    // A click on the card as first drawn (the original request, its fingerprint) changes nothing.
    await clickButton(b, card, DAVE, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, DAVE, 'edited by');
    await b.slack.idle();
    expect(made().refunds).toEqual([]);

    await clickButton(b, edited, DAVE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Refund done.');
    expect(made().refunds).toEqual([{ orderId: '1042', amountCents: 90000 }]);
  });

  it('an edit the policy denies is refused in the modal, beside the argument it changed, and changes nothing', async () => {
    const denying: PolicyInput = {
      tools: {
        issue_refund: {
          requireApproval: true,
          approvers: [BOB, CAROL, DAVE],
          rules: [{ when: { arg: 'amountCents', op: 'gt', value: 500000 }, then: { deny: 'Refunds above 5,000.00 <!channel> go through finance.' } }],
        },
      },
    };
    const { b, made } = await boot(100000, denying);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const view = await openEditModal(b, card, CAROL);
    const refused = await submitEdit(b, CAROL, view, '600000');
    expect(refused.status).toBe(200);
    // Plain text beside the field: Slack shows errors as they are, so nothing in it can notify anyone.
    expect(JSON.parse(refused.body)).toEqual({
      response_action: 'errors',
      errors: { f1: 'The approval policy denies this call with these arguments: Refunds above 5,000.00 <!channel> go through finance. Change them, or close to leave the request as it is.' },
    });
    await b.slack.idle();
    const row = (await b.agent.findRequest(card.actionId))!;
    expect(row).toMatchObject({ status: 'pending', args: { orderId: '1042', amountCents: 100000 } });
    expect(row.edit ?? null).toBeNull();
    expect(h.fake.callsTo('chat.postEphemeral').filter((c) => String(c.args.text).includes('denies'))).toEqual([]);

    // An edit the policy allows goes on as usual.
    await submitEdit(b, CAROL, view, '90000');
    await waitForText(h.fake, thread, 'Refund done.');
    expect(made().refunds).toEqual([{ orderId: '1042', amountCents: 90000 }]);
  });

  it('an invalid edit is shown beside its field and changes nothing; an unchanged one is a plain approve', async () => {
    const { b, made } = await boot(100000);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const view = await openEditModal(b, card, CAROL);
    const bad = await submitEdit(b, CAROL, view, '-5');
    expect(bad.status).toBe(200);
    expect(JSON.parse(bad.body)).toMatchObject({ response_action: 'errors', errors: { f1: expect.any(String) } });
    const notNumber = await submitEdit(b, CAROL, view, '12.5');
    expect(JSON.parse(notNumber.body)).toEqual({ response_action: 'errors', errors: { f1: 'Enter a whole number.' } });
    await b.slack.idle();
    expect((await b.agent.findRequest(card.actionId))?.status).toBe('pending');
    expect(made().refunds).toEqual([]);

    // Submitted as it was: a plain approve of the request as asked, no edit on record.
    await submitEdit(b, CAROL, view, '100000');
    const approved = await waitForUpdate(h.fake, card, `Approved by <@${CAROL}>`);
    expect(textOf(approved)).not.toContain('Edited by');
    await waitForText(h.fake, thread, 'Refund done.');
    expect(made().refunds).toEqual([{ orderId: '1042', amountCents: 100000 }]);
    expect((await b.agent.findRequest(card.actionId))?.status).toBe('approved');
  });

  it('an editor who may not approve the new amount leaves it pending for finance, also after a restart', async () => {
    const { b, made } = await boot(100000);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const view = await openEditModal(b, card, CAROL);
    await submitEdit(b, CAROL, view, '150000');
    await waitForEphemeral(h.fake, CAROL, 'does not count as your approval');
    await waitForText(h.fake, thread, `it now waits for <@${BOB}>`);
    const redrawn = await waitForUpdate(h.fake, card, `Edited by <@${CAROL}>: Amount $1,000.00 → $1,500.00`);
    const edited = asCard(card, redrawn);
    expect(made().refunds).toEqual([]);

    // DAVE may approve 1,000.00 but not 1,500.00.
    await clickButton(b, edited, DAVE, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, DAVE, 'Only listed approvers');

    // A new process draws the card from PostgreSQL: the edit line and the new request's buttons.
    await h.bot!.stop();
    const again = await boot(100000);
    await clickButton(again.b, edited, BOB, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Refund done.');
    const final = latest(card);
    expect(textOf(final)).toContain(`Approved by <@${BOB}>`);
    expect(textOf(final)).toContain(`Edited by <@${CAROL}>`);
    expect(again.made().refunds).toEqual([{ orderId: '1042', amountCents: 150000 }]);
  });

  it('route: dm — an approver the edit newly requires gets a copy of their own, and approves from it', async () => {
    const { b, made } = await boot(100000, {
      tools: {
        issue_refund: {
          requireApproval: true,
          approvers: [CAROL, DAVE],
          route: 'dm',
          rules: [{ when: { arg: 'amountCents', op: 'gt', value: 120000 }, then: { approvers: [BOB] } }],
        },
      },
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.args.channel === 'D0DAVE');
    expect(h.fake.callsTo('conversations.open').map((c) => c.args.users)).toEqual([CAROL, DAVE]);

    const carols = copyIn('D0CAROL');
    const view = await openEditModal(b, carols, CAROL);
    await submitEdit(b, CAROL, view, '150000');
    const bobs = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === 'D0BOB' && cardActions(blocksOf(c), 'approval') !== undefined);
    expect(textOf(bobs)).toContain(`Edited by <@${CAROL}>`);
    // Carol's and Dave's copies show the edited request too (it is no longer theirs to approve).
    await waitForUpdate(h.fake, carols, `Edited by <@${CAROL}>`);
    expect(h.fake.callsTo('conversations.open').map((c) => c.args.users)).toEqual([CAROL, DAVE, BOB]);

    // Bob's copy is kept with the card once it is posted; a click before that is refused as unknown.
    await b.slack.idle();
    await clickButton(b, copyIn('D0BOB'), BOB, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Refund done.');
    await waitForUpdate(h.fake, card, `Approved by <@${BOB}>`);
    expect(made().refunds).toEqual([{ orderId: '1042', amountCents: 150000 }]);
  });

  /** The card copy the bot posted (last) in a DM, as something to click. */
  function copyIn(channel: string): PostedCard {
    const call = h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === channel && cardActions(blocksOf(c), 'approval') !== undefined).at(-1)!;
    const actions = cardActions(blocksOf(call), 'approval')!;
    const ts = String(call.response?.ts);
    return { call, actionId: Number(String(actions.block_id).split(':')[1]), ts, channel, threadTs: ts, blocks: blocksOf(call) };
  }

  it('self-approval rules apply to the editor: a requester who may not approve may not edit', async () => {
    const { b } = await boot(100000, {
      tools: { issue_refund: { requireApproval: true, approvers: [REQUESTER, CAROL], allowSelfApproval: false } },
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await clickButton(b, card, REQUESTER, ACTION_IDS.edit);
    await waitForEphemeral(h.fake, REQUESTER, 'Nothing was changed.');
    await b.slack.idle();
    expect(h.fake.callsTo('views.open')).toHaveLength(0);
  });

  it('someone who may not approve cannot open Edit, and a forged submission changes nothing', async () => {
    const { b, made } = await boot(100000);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await clickButton(b, card, MALLORY, ACTION_IDS.edit);
    await waitForEphemeral(h.fake, MALLORY, 'Only listed approvers can edit');
    expect(h.fake.callsTo('views.open')).toHaveLength(0);

    // The modal's metadata copied from a real one (same request, same fingerprint), submitted by someone else.
    const view = await openEditModal(b, card, CAROL);
    const forged = await submitEdit(b, MALLORY, view, '1');
    expect(forged.status).toBe(200);
    await waitForEphemeral(h.fake, MALLORY, 'Nothing was changed.');
    expect(await b.agent.findRequest(card.actionId)).toMatchObject({ status: 'pending', args: { orderId: '1042', amountCents: 100000 } });
    const refused = await sql<{ actor: string; detail: Record<string, unknown> }>`
      SELECT actor, detail FROM audit_events WHERE event = 'refused' AND detail->>'actionId' = ${String(card.actionId)}`.execute(h.database.db);
    expect(refused.rows).toEqual([expect.objectContaining({ actor: MALLORY, detail: expect.objectContaining({ decision: 'edit', why: 'not-an-approver' }) })]);

    // A metadata that names the request without the fingerprint every Edit modal carries binds to no arguments: ignored.
    expect((await submitEdit(b, CAROL, { private_metadata: JSON.stringify({ a: card.actionId }) }, '1')).status).toBe(200);
    await b.slack.idle();
    expect(await b.agent.findRequest(card.actionId)).toMatchObject({ status: 'pending', args: { orderId: '1042', amountCents: 100000 } });

    // A metadata that names the request with another fingerprint is refused as stale.
    const stale = JSON.stringify({ a: card.actionId, f: '0123456789abcdef' });
    await submitEdit(b, CAROL, { private_metadata: stale }, '1');
    await waitForEphemeral(h.fake, CAROL, 'does not match the pending request');
    await b.slack.idle();
    expect(made().refunds).toEqual([]);
  });

  it('allowEdit: false leaves the card without an Edit button', async () => {
    const { b } = await boot(100000, policy({ allowEdit: false }));
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const buttons = cardActions(card.blocks, 'approval')!.elements as Array<Record<string, unknown>>;
    expect(buttons.map((e) => e.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.decline, ACTION_IDS.showArguments]);
  });
});
