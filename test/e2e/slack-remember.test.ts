import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { appHomeOpenedEnvelope, blockLimitErrors, viewLimitErrors } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { viewText } from '../helpers/home-view.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import {
  cardActions,
  clickButton,
  homeClickPayload,
  mention,
  recordingDeleteTool,
  slackHarness,
  startBot,
  textOf,
  waitForCard,
  waitForText,
  waitForUpdate,
  type AgentDeps,
  type Bot,
} from '../helpers/slack-bot.js';
import { CHANNEL, REQUESTER, ALICE, BOB, MALLORY } from '../helpers/test-workspace.js';

type Block = Record<string, any>;

const policy: PolicyInput = {
  tools: {
    delete_record: {
      approvers: [ALICE],
      allowSelfApproval: false,
      rememberFor: '1h',
      rules: [{ when: { arg: 'id', op: 'eq', value: 'prod' }, then: { risk: 'high' } }],
    },
  },
};

/** Each run deletes the record its message names ("delete r1"), then says so. */
function deleteModel() {
  const step = (call: LanguageModelV3CallOptions): ScriptStep => {
    const last = call.prompt.at(-1);
    const id = call.prompt
      .flatMap((m) => (m.role === 'user' ? m.content : []))
      .map((p) => (p.type === 'text' ? /delete (\S+)/.exec(p.text)?.[1] : undefined))
      .filter(Boolean)
      .at(-1);
    return last?.role === 'tool' ? { text: `Deleted ${id}.` } : { toolCalls: [{ toolName: 'delete_record', args: { id } }] };
  };
  return scriptedModel([step]);
}


describeOnOneBackend('remembered approvals in Slack on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(input: PolicyInput = policy) {
    const { deleteRecord, deleted } = recordingDeleteTool();
    const bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      homeRefresh: { debounceMs: 20, minIntervalMs: 0 },
      makeAgent: (deps: AgentDeps) =>
        new Agent({ id: 'ops', instructions: 'test', model: deleteModel(), tools: { delete_record: deleteRecord }, storage: h.database, policy: definePolicy(input), ...deps }),
    });
    h.bot = bot;
    return { bot, deleted };
  }

  async function cardFor(bot: Bot, user: string, id: string) {
    const thread = await mention(bot, { user, channel: CHANNEL, text: `delete ${id}` });
    return { thread, card: await waitForCard(h.fake, thread, 'approval') };
  }

  /** Uses of one remembered approval on the audit trail (the database is shared by the file's tests). */
  async function rememberedUses(grantId: number): Promise<Array<{ detail: { rememberedGrantId: number }; actor: string }>> {
    const result = await sql<{ detail: { rememberedGrantId: number }; actor: string }>`
      SELECT detail, actor FROM audit_events WHERE event = 'remembered-grant-used' AND (detail->>'rememberedGrantId')::int = ${grantId}
      ORDER BY id`.execute(h.database.db);
    return result.rows;
  }

  async function rememberOne(bot: Bot, id: string) {
    const { thread, card } = await cardFor(bot, REQUESTER, id);
    const buttons = cardActions(card.blocks, 'approval')!.elements as Block[];
    expect(buttons.map((b) => [b.action_id, b.text.text])).toEqual([
      [ACTION_IDS.approve, 'Approve'],
      [ACTION_IDS.approveRemember, 'Approve and allow for 1 hour'],
      [ACTION_IDS.edit, 'Edit'],
      [ACTION_IDS.decline, 'Decline'],
      [ACTION_IDS.showArguments, 'Show arguments'],
    ]);
    expect(blockLimitErrors(card.blocks)).toEqual([]);
    await clickButton(bot, card, ALICE, ACTION_IDS.approveRemember);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, `<@${ALICE}> allowed identical *delete_record* calls by <@${REQUESTER}> until`);
    await waitForText(h.fake, thread, `Deleted ${id}.`);
    const row = await sql<{ id: number }>`SELECT id FROM remembered_grants WHERE requester = ${REQUESTER} AND args = ${JSON.stringify({ id })}::jsonb AND revoked_at IS NULL`.execute(h.database.db);
    expect(row.rows).toHaveLength(1);
    return row.rows[0]!.id;
  }

  it('approve and allow for 1 hour: the same request by the same requester then runs without a card, said in its thread and audited', async () => {
    const { bot, deleted } = await boot();
    const grantId = await rememberOne(bot, 'r1');

    const second = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete r1' });
    const told = await waitForText(h.fake, second, 'ran under a remembered approval');
    expect(textOf(told)).toContain(`by <@${ALICE}>`);
    await waitForText(h.fake, second, 'Deleted r1.');
    expect(deleted).toEqual([{ id: 'r1' }, { id: 'r1' }]);
    // No card in the second thread.
    expect(h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts === second.threadTs && cardActions((c.args.blocks as Block[]) ?? [], 'approval'))).toEqual([]);
    expect(await rememberedUses(grantId)).toEqual([{ detail: expect.objectContaining({ rememberedGrantId: grantId }), actor: ALICE }]);

    // The requester's inbox lists the call that ran without a card with a link to its thread, where the note says how it ran.
    const used = await sql<{ id: number }>`SELECT id FROM pending_actions WHERE status = 'approved' AND requester = ${REQUESTER} ORDER BY id DESC LIMIT 1`.execute(h.database.db);
    const before = h.fake.callsTo('views.publish').length;
    await bot.send.event(appHomeOpenedEnvelope({ user: REQUESTER, channel: `D${REQUESTER.slice(1)}` }));
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === REQUESTER && h.fake.callsTo('views.publish').length > before);
    expect(viewText(h.fake.homeView(REQUESTER))).toMatch(
      new RegExp(`\\*Delete record\\* \\(\\*ID\\* r1\\) #${used.rows[0]!.id} · <https://[^|>]+/archives/${CHANNEL}/p${second.threadTs.replace('.', '')}\\?thread_ts=${second.threadTs}&cid=${CHANNEL}\\|open thread> — :white_check_mark: approved by <@${ALICE}>`),
    );

    // Another requester, or other arguments, still get a card; nothing else runs.
    const other = await cardFor(bot, BOB, 'r1');
    expect(other.card.actionId).toBeGreaterThan(0);
    const otherArgs = await cardFor(bot, REQUESTER, 'r1b');
    expect(otherArgs.card.actionId).toBeGreaterThan(0);
    await bot.slack.idle();
    expect(deleted).toHaveLength(2);
    expect(await rememberedUses(grantId)).toHaveLength(1);
  });

  it('a changed policy version still gets a card', async () => {
    const first = await boot();
    await rememberOne(first.bot, 'v1');
    await first.bot.stop();
    h.bot = undefined;
    const { bot, deleted } = await boot({ ...policy, tools: { delete_record: { ...policy.tools!.delete_record!, quorum: 1, expiresIn: '2h' } } });
    await cardFor(bot, REQUESTER, 'v1');
    await bot.slack.idle();
    expect(deleted).toEqual([]);
  });

  it('revoke in App Home: the requester revokes it, and the next identical request gets a card', async () => {
    const { bot, deleted } = await boot();
    const grantId = await rememberOne(bot, 'h1');
    const before = h.fake.callsTo('views.publish').length;
    await bot.send.event(appHomeOpenedEnvelope({ user: REQUESTER, channel: `D${REQUESTER.slice(1)}` }));
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === REQUESTER && h.fake.callsTo('views.publish').length > before);
    const home = h.fake.homeView(REQUESTER)!;
    expect(viewLimitErrors(home, 'home')).toEqual([]);
    expect(viewText(home)).toMatch(/\*Remembered approvals\* \(\d+\)/);
    const row = (home.blocks as Block[]).find((b) => b.block_id === `remembered:${grantId}`)!;
    expect(row.text.text).toContain(`for <@${REQUESTER}> · allowed by <@${ALICE}> · until <!date^`);
    // The calls it allows in words, as the card said them; no JSON.
    expect(row.text.text).toMatch(new RegExp(`^\\*Delete record\\* #${grantId}\n\`delete_record\` · `));
    expect(row.text.text).toContain('*ID* h1');
    expect(row.text.text).not.toContain('{"id"');
    expect(row.accessory).toMatchObject({ action_id: ACTION_IDS.revokeRemembered, text: { text: 'Revoke' } });

    // Someone who is neither its creator, its requester nor an approver is refused, on their own Home.
    await bot.send.event(appHomeOpenedEnvelope({ user: MALLORY, channel: `D${MALLORY.slice(1)}` }));
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === MALLORY);
    expect(viewText(h.fake.homeView(MALLORY))).toContain('*Remembered approvals* (0)');
    await bot.send.interaction(homeClickPayload(h.fake.homeView(MALLORY)!, MALLORY, row.accessory, row.block_id));
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === MALLORY && viewText(h.fake.homeView(MALLORY)).includes('Nothing was changed'));
    expect((await sql<{ revoked_at: Date | null }>`SELECT revoked_at FROM remembered_grants WHERE id = ${grantId}`.execute(h.database.db)).rows[0]!.revoked_at).toBeNull();

    // Alice, who allowed it, has her Home open too: it lists the approval, and is republished without it after the revoke.
    await bot.send.event(appHomeOpenedEnvelope({ user: ALICE, channel: `D${ALICE.slice(1)}` }));
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === ALICE);
    const listed = (user: string) => (h.fake.homeView(user)!.blocks as Block[]).some((b) => b.block_id === `remembered:${grantId}`);
    expect(listed(ALICE)).toBe(true);

    const click = await bot.send.interaction(homeClickPayload(home, REQUESTER, row.accessory, row.block_id));
    expect(click.status).toBe(200);
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === REQUESTER && viewText(h.fake.homeView(REQUESTER)).includes('Revoked the remembered approval'));
    expect((h.fake.homeView(REQUESTER)!.blocks as Block[]).find((b) => b.block_id === `remembered:${grantId}`)).toBeUndefined();
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === ALICE && !listed(ALICE));
    const audit = await sql<{ actor: string }>`
      SELECT actor FROM audit_events WHERE event = 'remembered-revoked' AND (detail->>'rememberedGrantId')::int = ${grantId}`.execute(h.database.db);
    expect(audit.rows).toEqual([{ actor: REQUESTER }]);

    // Mallory clicking Revoke on it now (revoked) hears what an id that names nothing gets: not that it existed, nor that it ended.
    const malloryTold = async (value: string) => {
      const published = h.fake.callsTo('views.publish').filter((c) => c.args.user_id === MALLORY).length;
      await bot.send.interaction(homeClickPayload(h.fake.homeView(MALLORY)!, MALLORY, { ...row.accessory, value }, row.block_id));
      await h.fake.waitFor(() => h.fake.callsTo('views.publish').filter((c) => c.args.user_id === MALLORY).length > published);
      return viewText(h.fake.homeView(MALLORY)).replace(/#\d+/g, '#N');
    };
    const onRevoked = await malloryTold(String(grantId));
    expect(onRevoked).not.toMatch(/already revoked|has ended/);
    expect(onRevoked).toBe(await malloryTold('999999'));
    expect(onRevoked).toContain('Nothing was changed.');

    await cardFor(bot, REQUESTER, 'h1');
    await bot.slack.idle();
    expect(deleted).toEqual([{ id: 'h1' }]);
    expect(await rememberedUses(grantId)).toEqual([]);
  });

  it('remembered approvals opened in full: Revoke in the list’s modal revokes it and redraws the list', async () => {
    const { bot } = await boot();
    const grantId = await rememberOne(bot, 'list1');
    const before = h.fake.callsTo('views.publish').length;
    await bot.send.event(appHomeOpenedEnvelope({ user: REQUESTER, channel: `D${REQUESTER.slice(1)}` }));
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === REQUESTER && h.fake.callsTo('views.publish').length > before);
    // What "Show all" under the list sends (the Home shows it once there are more than ten).
    const showAll = { action_id: ACTION_IDS.inboxList, text: { type: 'plain_text', text: 'Show all' }, value: 'remembered:0' };
    const opens = h.fake.callsTo('views.open').length;
    await bot.send.interaction(homeClickPayload(h.fake.homeView(REQUESTER)!, REQUESTER, showAll, 'inbox:more:remembered'));
    const opened = await h.fake.waitFor((c) => c.method === 'views.open' && h.fake.callsTo('views.open').length > opens);
    const modalId = String((opened.response as { view: { id: string } }).view.id);
    const modal = h.fake.view(modalId)!;
    expect(modal.title).toMatchObject({ text: 'Remembered approvals' });
    const row = (modal.blocks as Block[]).find((b) => b.block_id === `remembered:${grantId}`)!;
    expect(row.text.text).toContain('*ID* list1');

    await bot.send.interaction(homeClickPayload(modal, REQUESTER, row.accessory, row.block_id));
    const redrawn = await h.fake.waitFor((c) => c.method === 'views.update' && c.args.view_id === modalId);
    expect(((redrawn.args.view as { blocks: Block[] }).blocks).find((b) => b.block_id === `remembered:${grantId}`)).toBeUndefined();
    expect((await sql<{ revoked_at: Date | null }>`SELECT revoked_at FROM remembered_grants WHERE id = ${grantId}`.execute(h.database.db)).rows[0]!.revoked_at).not.toBeNull();
    await h.fake.waitFor((c) => c.method === 'views.publish' && c.args.user_id === REQUESTER && viewText(h.fake.homeView(REQUESTER)).includes('Revoked the remembered approval'));
  });

  it('the button never appears on a high-risk request', async () => {
    const { bot } = await boot();
    const { card } = await cardFor(bot, REQUESTER, 'prod');
    const ids = (cardActions(card.blocks, 'approval')!.elements as Block[]).map((b) => b.action_id);
    expect(ids).toEqual([ACTION_IDS.approve, ACTION_IDS.edit, ACTION_IDS.decline, ACTION_IDS.showArguments]);
    // A forged "approve and remember" click on it approves, and remembers nothing.
    await clickButton(bot, card, ALICE, ACTION_IDS.approveRemember, { value: (cardActions(card.blocks, 'approval')!.elements as Block[])[0]!.value });
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    expect((await sql`SELECT 1 FROM remembered_grants WHERE action_id = ${card.actionId}`.execute(h.database.db)).rows).toEqual([]);
    expect(await bot.agent.rememberForOf({ tool_name: 'delete_record', args: { id: 'prod' }, path: ['ops'], requester: REQUESTER })).toBeUndefined();
  });

  it('a remembered approval is not used once the requester is over a limit that asks for 2: the card says why, after a restart too', async () => {
    const limited: PolicyInput = {
      tools: {
        delete_record: {
          approvers: [ALICE, BOB],
          allowSelfApproval: false,
          rememberFor: '1h',
          limits: [{ count: true, by: 'requester', over: '1h', above: 2, then: { quorum: 2 } }],
        },
      },
    };
    const { bot, deleted } = await boot(limited);
    const grantId = await rememberOne(bot, 'lim1');

    // The second call is still under the limit: it runs under the remembered approval.
    const second = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete lim1' });
    await waitForText(h.fake, second, 'ran under a remembered approval');
    await waitForText(h.fake, second, 'Deleted lim1.');
    expect(deleted).toEqual([{ id: 'lim1' }, { id: 'lim1' }]);

    // The third is over it (3 calls in the hour): two approvals, and the remembered one is one.
    const { thread, card } = await cardFor(bot, REQUESTER, 'lim1');
    const text = textOf(card.call);
    expect(text).toContain('*Quorum:* 2 approvals');
    expect(text).toContain('*Over the limit:* 3 calls of `delete_record`');
    expect(text).toContain(`*Remembered approval not used:* <@${ALICE}>'s remembered approval #${grantId}`);
    expect(text).toContain('which now needs 2 approvals (it stands for 1)');
    await bot.slack.idle();
    expect(deleted).toHaveLength(2);
    expect(await rememberedUses(grantId)).toHaveLength(1);
    const requested = await sql<{ detail: Record<string, unknown> }>`
      SELECT detail FROM audit_events WHERE event = 'requested' AND run_id = (SELECT run_id FROM pending_actions WHERE id = ${card.actionId})`.execute(h.database.db);
    expect(requested.rows[0]!.detail).toMatchObject({ limits: [{ count: true, total: 3 }], rememberedUnused: { rememberedGrantId: grantId, allowedBy: ALICE, approvals: 1, why: ['quorum'] } });

    // A new process draws the card from the row: the reason stays on it.
    await bot.stop();
    h.bot = undefined;
    const again = await boot(limited);
    await clickButton(again.bot, card, ALICE, ACTION_IDS.approve);
    const vote = await waitForUpdate(h.fake, card, '1 of 2 approvals');
    expect(textOf(vote)).toContain('*Remembered approval not used:*');
    await clickButton(again.bot, card, BOB, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted lim1.');
    expect(again.deleted).toEqual([{ id: 'lim1' }]);
  });
});
