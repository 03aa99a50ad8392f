/**
 * Issue 27's policy features over the Slack simulator, through the real Slack front end: a deny
 * that a remembered approval cannot override (and the thread told), a change freeze that holds a
 * call already approved (its new card naming the freeze), a freeze that denies one, a run nobody
 * requested that waits for a person and is decided from the Home tab, and a shadow policy whose
 * difference is recorded while the enforced one decides.
 */
import { expect, it } from 'vitest';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { appHomeOpenedEnvelope, viewSubmissionPayload } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { viewText } from '../helpers/home-view.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import {
  blocksOf,
  buttonClick,
  clickButton,
  homeClickPayload,
  inThread,
  mention,
  recordingDeleteTool,
  slackHarness,
  startBot,
  textOf,
  updatesOf,
  waitForCard,
  waitForText,
  waitForUpdate,
  type PostedCard,
} from '../helpers/slack-bot.js';
import { ALICE, BOB, CHANNEL, REQUESTER } from '../helpers/test-workspace.js';

type Block = Record<string, any>;

/** Deletes the ids its last message names ("delete r1", "delete a and b": one step), then says what became of each. */
function deleteModel() {
  const step = (call: LanguageModelV3CallOptions): ScriptStep => {
    const last = call.prompt.at(-1);
    if (last?.role === 'tool') {
      const said = last.content.map((p) => {
        if (p.type !== 'tool-result') return '';
        const out = p.output as { type: string; reason?: string };
        return out.type === 'execution-denied' ? `Not done: ${out.reason}` : 'Deleted.';
      });
      return { text: said.join(' ') };
    }
    const text = call.prompt.flatMap((m) => (m.role === 'user' ? m.content : [])).map((p) => (p.type === 'text' ? p.text : '')).at(-1) ?? '';
    const ids = (/delete (.+)/.exec(text)?.[1] ?? '').split(/ and /).map((s) => s.trim());
    return { toolCalls: ids.map((id) => ({ toolName: 'delete_record', args: { id } })) };
  };
  return scriptedModel([step]);
}

describeOnOneBackend('policy enforcement in Slack on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(policy: PolicyInput, extra: { clock?: () => Date; shadowPolicy?: PolicyInput } = {}) {
    const { deleteRecord, deleted } = recordingDeleteTool();
    const bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      homeRefresh: { debounceMs: 20, minIntervalMs: 0 },
      makeAgent: (deps) =>
        new Agent({
          id: 'ops',
          instructions: 'test',
          model: deleteModel(),
          tools: { delete_record: deleteRecord },
          storage: h.database,
          policy: definePolicy(policy),
          ...(extra.clock ? { clock: extra.clock } : {}),
          ...(extra.shadowPolicy ? { shadowPolicy: definePolicy(extra.shadowPolicy) } : {}),
          ...deps,
        }),
    });
    h.bot = bot;
    return { bot, deleted };
  }

  const cardsIn = (thread: { channel: string; threadTs: string }) =>
    h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, thread.channel, thread.threadTs) && blocksOf(c).some((b) => String(b.block_id ?? '').startsWith('approval:')));

  it('a deny that a remembered approval cannot override: the call over the limit is refused in the thread, with no card', async () => {
    const { bot, deleted } = await boot({
      tools: {
        delete_record: {
          requireApproval: true,
          approvers: [ALICE],
          rememberFor: '1h',
          limits: [{ count: true, by: 'requester', over: '1h', above: 2, then: { deny: 'At most two deletions an hour.' } }],
        },
      },
    });
    const first = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete r1' });
    const card = await waitForCard(h.fake, first, 'approval');
    await clickButton(bot, card, ALICE, ACTION_IDS.approveRemember);
    await waitForText(h.fake, first, 'Deleted.');
    const second = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete r1' });
    await waitForText(h.fake, second, 'ran under a remembered approval');
    await waitForText(h.fake, second, 'Deleted.');
    expect(deleted).toEqual([{ id: 'r1' }, { id: 'r1' }]);

    const third = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete r1' });
    const refused = await waitForText(h.fake, third, 'Not done: Tool call denied by policy');
    expect(textOf(refused)).toContain('At most two deletions an hour.');
    // The thread is told too, not only through what the model makes of it.
    const notice = await waitForText(h.fake, third, 'refused by policy');
    expect(textOf(notice)).toContain(':no_entry: `delete_record` refused by policy: At most two deletions an hour. It did not run, and nobody was asked.');
    await bot.slack.idle();
    expect(cardsIn(third)).toEqual([]);
    expect(h.fake.calls.some((c) => c.method === 'chat.postMessage' && inThread(c, third.channel, third.threadTs) && textOf(c).includes('remembered approval'))).toBe(false);
    expect(deleted).toHaveLength(2);
    const events = await listAuditEvents(h.database.db);
    expect(events.filter((e) => e.event === 'denied')).toMatchObject([{ actor: REQUESTER, detail: { reason: 'At most two deletions an hour.', source: 'tools.delete_record.limits[0]' } }]);
  });

  it('a freeze holds a call approved before it began: asked again of the freeze approvers, run only once they approve', async () => {
    const clock = { now: new Date('2026-07-03T15:50:00Z') };
    const { bot, deleted } = await boot(
      {
        tools: { delete_record: { requireApproval: true, approvers: [ALICE] } },
        freezes: [{ name: 'weekend', every: '0 18 * * 5', for: '62h', timeZone: 'Europe/Berlin', tools: ['delete_record'], then: { approvers: [BOB] } }],
      },
      { clock: () => clock.now },
    );
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a and b' });
    const call = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, thread.channel, thread.threadTs) && textOf(c).includes('actions need approval'));
    const batch: PostedCard = { call, actionId: Number.NaN, ts: String(call.response?.ts), channel: thread.channel, threadTs: thread.threadTs, blocks: blocksOf(call) };
    const [a, b] = batch.blocks.flatMap((x) => (/^approval:\d+$/.test(String(x.block_id)) ? [Number(String(x.block_id).split(':')[1])] : []));
    const clickIn = async (card: PostedCard, user: string, id: number) => {
      const blocks = updatesOf(h.fake, card).length ? blocksOf(updatesOf(h.fake, card).at(-1)!) : card.blocks;
      const button = (blocks.find((x) => x.block_id === `approval:${id}`)?.elements as Block[] | undefined)?.find((e) => e.action_id === ACTION_IDS.approve);
      expect(button, `Approve of #${id}`).toBeDefined();
      expect((await bot.send.interaction(buttonClick(card, user, ACTION_IDS.approve, { blockId: `approval:${id}`, value: button!.value }).payload)).status).toBe(200);
    };
    // a is approved before the freeze; the run still waits for b.
    await clickIn(batch, ALICE, a!);
    await waitForUpdate(h.fake, batch, `Approved by <@${ALICE}>`);
    expect(deleted).toEqual([]);

    // 18:00 in Berlin: the weekend freeze begins, and only Bob may decide. b, approved now, and a, approved before,
    // are both asked again under it.
    clock.now = new Date('2026-07-03T16:00:00Z');
    await clickIn(batch, BOB, b!);
    const again = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, thread.channel, thread.threadTs) && String(c.response?.ts) !== batch.ts && textOf(c).includes('actions need approval'), { timeoutMs: 10_000 });
    await bot.slack.idle();
    expect(deleted).toEqual([]);
    const rows = await Promise.all(blocksOf(again).flatMap((x) => (/^approval:\d+$/.test(String(x.block_id)) ? [Number(String(x.block_id).split(':')[1])] : [])).map((id) => bot.agent.findRequest(id)));
    expect(rows.map((r) => [r!.args, r!.status, r!.policy_version])).toEqual([
      [{ id: 'a' }, 'pending', `${bot.agent.policy.version}+freeze:weekend`],
      [{ id: 'b' }, 'pending', `${bot.agent.policy.version}+freeze:weekend`],
    ]);
    expect(bot.agent.requirementOf(rows[0]!)).toMatchObject({ approvers: [BOB], freezes: [{ name: 'weekend', until: '2026-07-06T06:00:00.000Z' }] });
    // The new card says which freeze holds each call until when, and that a's approval, given before it began, did not run.
    const againText = textOf(again);
    expect(againText.split(':arrows_counterclockwise: asked again: a change freeze began after it was approved')).toHaveLength(2);
    expect(againText.split(`:snowflake: freeze \`weekend\` until <!date^${Date.parse('2026-07-06T06:00:00Z') / 1000}^`)).toHaveLength(3);
    // b was still waiting when the freeze began: Bob's click found the policy changed, and it was simply asked again.
    expect(rows.map((r) => bot.agent.bindingOf(r!).askedAgain)).toEqual([{ fromActionId: a, why: 'freeze' }, undefined]);
    const events = await listAuditEvents(h.database.db, { runId: rows[0]!.run_id });
    expect(events.filter((e) => e.event === 'superseded' && e.detail && 'freezes' in e.detail)).toHaveLength(1);

    const second: PostedCard = { call: again, actionId: Number.NaN, ts: String(again.response?.ts), channel: thread.channel, threadTs: thread.threadTs, blocks: blocksOf(again) };
    for (const r of rows) await clickIn(second, BOB, r!.id);
    await waitForText(h.fake, thread, 'Deleted. Deleted.');
    expect(deleted).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  it('a freeze that denies: a call approved before it began does not run, and the thread says which freeze refused it, until when', async () => {
    const clock = { now: new Date('2026-07-03T15:50:00Z') };
    const { bot, deleted } = await boot(
      {
        tools: { delete_record: { requireApproval: true, approvers: [ALICE] } },
        freezes: [{ name: 'release <!channel>', from: '2026-07-03T16:00:00Z', to: '2026-07-04T16:00:00Z', tools: ['delete_record'], then: { deny: 'No deletions during the release.' } }],
      },
      { clock: () => clock.now },
    );
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete a and b' });
    const call = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, thread.channel, thread.threadTs) && textOf(c).includes('actions need approval'));
    const batch: PostedCard = { call, actionId: Number.NaN, ts: String(call.response?.ts), channel: thread.channel, threadTs: thread.threadTs, blocks: blocksOf(call) };
    const [a, b] = batch.blocks.flatMap((x) => (/^approval:\d+$/.test(String(x.block_id)) ? [Number(String(x.block_id).split(':')[1])] : []));
    const approve = async (id: number) => {
      const blocks = updatesOf(h.fake, batch).length ? blocksOf(updatesOf(h.fake, batch).at(-1)!) : batch.blocks;
      const button = (blocks.find((x) => x.block_id === `approval:${id}`)?.elements as Block[]).find((e) => e.action_id === ACTION_IDS.approve)!;
      expect((await bot.send.interaction(buttonClick(batch, ALICE, ACTION_IDS.approve, { blockId: `approval:${id}`, value: button.value }).payload)).status).toBe(200);
    };
    await approve(a!);
    await waitForUpdate(h.fake, batch, `Approved by <@${ALICE}>`);

    clock.now = new Date('2026-07-03T16:05:00Z');
    await approve(b!);
    const notices = () => h.fake.calls.filter((c) => c.method === 'chat.postMessage' && inThread(c, thread.channel, thread.threadTs) && String(c.args.text).includes('refused by policy'));
    await h.fake.waitFor(() => notices().length >= 2, { timeoutMs: 10_000 });
    await bot.slack.idle();
    expect(deleted).toEqual([]);
    const until = `<!date^${Date.parse('2026-07-04T16:00:00Z') / 1000}^{date_short_pretty} {time}|2026-07-04T16:00:00.000Z>`;
    for (const notice of notices()) {
      expect(String(notice.args.text)).toBe(`:no_entry: \`delete_record\` refused by policy during change freeze \`release &lt;!channel&gt;\` (until ${until}): No deletions during the release. It did not run, and nobody was asked.`);
    }
    const events = await listAuditEvents(h.database.db, { runId: (await bot.agent.findRequest(a!))!.run_id });
    expect(events.filter((e) => e.event === 'denied')).toHaveLength(2);
  });

  it('a run nobody requested waits for a person: nothing runs it unasked, it waits in the approver’s inbox, labelled by its caller', async () => {
    const { bot, deleted } = await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE] } } });
    const stream = await bot.agent.stream('delete nightly-1', { caller: 'nightly-cleanup' });
    const paused = await stream.result;
    expect(paused.finishReason).toBe('suspended');
    const [request] = (await bot.agent.listSuspendedRuns()).runs.flatMap((r) => r.toolCalls);
    expect(request).toMatchObject({ toolName: 'delete_record', requiresApproval: true });
    const row = (await bot.agent.findRequest((await bot.agent.latestApprovalId(stream.runId, paused.suspendPayload!.toolCallId))!))!;
    expect(row).toMatchObject({ status: 'pending', requester: null, caller: 'nightly-cleanup' });
    await bot.slack.idle();
    expect(deleted).toEqual([]);

    const before = h.fake.callsTo('views.publish').filter((c) => c.args.user_id === ALICE).length;
    await bot.send.event(appHomeOpenedEnvelope({ user: ALICE, channel: `D${ALICE.slice(1)}` }));
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === ALICE && h.fake.callsTo('views.publish').filter((x) => x.args.user_id === ALICE).length > before);
    const view = h.fake.homeView(ALICE)!;
    const home = viewText(view);
    expect(home).toContain(`*Delete record* #${row.id}`);
    expect(home).toContain('requested by no person — by agent `ops` (nightly-cleanup)');
    await bot.slack.idle();
    expect(deleted).toEqual([]);
    // Its run has no thread and so no card: the approver decides it from the Home tab, and only then does it run.
    const buttons = (view.blocks as Block[]).find((x) => x.type === 'actions' && x.block_id === `approval:${row.id}`)!;
    const approve = (buttons.elements as Block[]).find((e) => e.action_id === ACTION_IDS.inboxApprove)!;
    expect((await bot.send.interaction(homeClickPayload(view, ALICE, approve, buttons.block_id))).status).toBe(200);
    await expect.poll(() => deleted, { timeout: 10_000 }).toEqual([{ id: 'nightly-1' }]);
    await bot.slack.idle();
    expect((await bot.agent.findRequest(row.id))!.status).toBe('approved');
    expect(h.fake.calls.filter((c) => c.method === 'chat.postMessage' && textOf(c).includes('Deleted.'))).toEqual([]);
    const events = await listAuditEvents(h.database.db, { runId: stream.runId });
    expect(events.find((e) => e.event === 'requested')).toMatchObject({ actor: null, detail: { caller: 'nightly-cleanup' } });
    expect(events.find((e) => e.event === 'approved')).toMatchObject({ actor: ALICE });
  });

  it('a run nobody requested declined from the Home tab: the reason form opens, the decline stands, nothing runs, the Home is redrawn', async () => {
    const { bot, deleted } = await boot({ tools: { delete_record: { requireApproval: true, approvers: [ALICE] } } });
    const stream = await bot.agent.stream('delete nightly-2', { caller: 'nightly-cleanup' });
    const paused = await stream.result;
    const id = (await bot.agent.latestApprovalId(stream.runId, paused.suspendPayload!.toolCallId))!;
    const published = () => h.fake.callsTo('views.publish').filter((c) => c.args.user_id === ALICE).length;
    let before = published();
    await bot.send.event(appHomeOpenedEnvelope({ user: ALICE, channel: `D${ALICE.slice(1)}` }));
    await h.fake.waitFor(() => published() > before);
    const view = h.fake.homeView(ALICE)!;
    const buttons = (view.blocks as Block[]).find((x) => x.type === 'actions' && x.block_id === `approval:${id}`)!;
    const decline = (buttons.elements as Block[]).find((e) => e.action_id === ACTION_IDS.inboxDecline)!;
    const opened = h.fake.callsTo('views.open').length;
    expect((await bot.send.interaction(homeClickPayload(view, ALICE, decline, buttons.block_id))).status).toBe(200);
    await h.fake.waitFor(() => h.fake.callsTo('views.open').length > opened);
    const modal = h.fake.callsTo('views.open').at(-1)!.args.view as { callback_id: string; private_metadata: string };
    expect(modal.callback_id).toBe(CALLBACK_IDS.declineModal);
    before = published();
    const submitted = await bot.send.interaction(viewSubmissionPayload({ user: ALICE, callbackId: CALLBACK_IDS.declineModal, privateMetadata: modal.private_metadata, stateValues: { reason: { reason: 'Not tonight.' } } }));
    expect(submitted.status).toBe(200);
    await expect.poll(async () => (await bot.agent.findRequest(id))!.status, { timeout: 10_000 }).toBe('declined');
    await h.fake.waitFor(() => published() > before);
    await bot.slack.idle();
    const home = viewText(h.fake.homeView(ALICE)!);
    expect(home).toContain('*Waiting for you* (0)');
    expect(home).toMatch(new RegExp(`#${id} — :x: declined by <@${ALICE}>`));
    expect(deleted).toEqual([]);
    const events = await listAuditEvents(h.database.db, { runId: stream.runId });
    expect(events.find((e) => e.event === 'declined')).toMatchObject({ actor: ALICE });
  });

  it('a shadow policy that would ask someone else: the card is the enforced policy’s, the difference is recorded', async () => {
    const { bot, deleted } = await boot(
      { tools: { delete_record: { requireApproval: true, approvers: [ALICE] } } },
      { shadowPolicy: { tools: { delete_record: { requireApproval: true, approvers: [BOB], quorum: 2 } } } },
    );
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete s1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(bot.agent.requirementOf((await bot.agent.findRequest(card.actionId))!)).toMatchObject({ approvers: [ALICE], quorum: 1 });
    await clickButton(bot, card, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted.');
    expect(deleted).toEqual([{ id: 's1' }]);
    const runId = (await bot.agent.findRequest(card.actionId))!.run_id;
    const diffs = (await listAuditEvents(h.database.db, { runId })).filter((e) => e.event === 'shadow-diff');
    expect(diffs).toMatchObject([{ actor: REQUESTER, detail: { differences: ['other-approvers', 'other-quorum'], enforced: { outcome: 'asks', approvers: [ALICE] }, shadow: { outcome: 'asks', approvers: [BOB], quorum: 2 } } }]);
  });
});

