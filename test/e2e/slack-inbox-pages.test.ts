import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { appHomeOpenedEnvelope, blockActionsPayload, blockLimitErrors, type StoredView } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { homeClickPayload, mention, textOf, recordingDeleteTool, slackHarness, startBot, waitForCard, type AgentDeps, type Bot } from '../helpers/slack-bot.js';
import { BOB, CAROL, CHANNEL, REQUESTER } from '../helpers/test-workspace.js';

type Block = Record<string, any>;

const viewText = (blocks: unknown[] | undefined): string => textOf({ args: { blocks: blocks ?? [] } } as never);

/** The ids of the requests a list of blocks offers Approve and Decline for, in order. */
const decisionIds = (blocks: unknown[]) => (blocks as Block[]).filter((b) => b.type === 'actions' && String(b.block_id).startsWith('approval:')).map((b) => Number(String(b.block_id).slice('approval:'.length)));
const pageButton = (blocks: unknown[], text: string) => (blocks as Block[]).find((b) => b.block_id === 'inbox:page')?.elements.find((e: Block) => e.text.text === text) as Block | undefined;

const FLOOD = 500;

describeOnOneBackend('an approvals inbox flooded by requests for someone else, in Slack on %s', (backend) => {
  const h = slackHarness(backend);
  // Bob approves deletes; Carol, alone, those of the prod table. 500 prod deletes wait before Bob's one.
  const policy = definePolicy({ tools: { delete_record: { approvers: [BOB], allowSelfApproval: false, rules: [{ when: { arg: 'table', op: 'eq', value: 'prod' }, then: { approvers: [CAROL] } }] } } });

  async function boot(): Promise<Bot> {
    const { deleteRecord } = recordingDeleteTool();
    const bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      homeRefresh: { debounceMs: 20, minIntervalMs: 0 },
      makeAgent: (deps: AgentDeps) =>
        new Agent({
          id: 'ops',
          instructions: 'test',
          model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'bobs-one' } }] }]),
          tools: { delete_record: deleteRecord },
          storage: h.database,
          policy,
          ...deps,
        }),
    });
    h.bot = bot;
    return bot;
  }

  async function openHome(bot: Bot, user: string): Promise<StoredView> {
    const before = h.fake.callsTo('views.publish').filter((c) => c.args.user_id === user).length;
    expect((await bot.send.event(appHomeOpenedEnvelope({ user, channel: `D${user.slice(1)}` }))).status).toBe(200);
    await h.fake.waitFor(() => h.fake.callsTo('views.publish').filter((c) => c.args.user_id === user).length > before);
    return h.fake.homeView(user)!;
  }

  async function clickOnHome(bot: Bot, user: string, button: Block): Promise<StoredView> {
    const before = h.fake.callsTo('views.publish').filter((c) => c.args.user_id === user).length;
    expect((await bot.send.interaction(homeClickPayload(h.fake.homeView(user)!, user, button, button.block_id ?? 'inbox:page'))).status).toBe(200);
    await h.fake.waitFor(() => h.fake.callsTo('views.publish').filter((c) => c.args.user_id === user).length > before);
    return h.fake.homeView(user)!;
  }

  it('500 requests only Carol may decide do not hide the one waiting for Bob; Carol’s count is exact and she pages through them, oldest first, on Home and in /approvals', async () => {
    const bot = await boot();
    await sql`
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, path, status, requester, policy_version, expires_at)
      SELECT 'prod' || g, 'prod' || g, 'c', 'delete_record', 'approval', jsonb_build_object('id', 'p' || g, 'table', 'prod'), repeat('b', 64), '["ops"]', 'pending',
             ${REQUESTER}, ${policy.version}, now() + interval '1 day'
      FROM generate_series(1, ${FLOOD}) g
    `.execute(h.database.db);
    const card = await waitForCard(h.fake, await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete bobs-one' }), 'approval');

    const bobs = await openHome(bot, BOB);
    expect(viewText(bobs.blocks)).toContain('*Waiting for you* (1)');
    expect(decisionIds(bobs.blocks)).toEqual([card.actionId]);

    const carols = await openHome(bot, CAROL);
    expect(blockLimitErrors(carols.blocks, '/view/blocks')).toEqual([]);
    expect(viewText(carols.blocks)).toContain(`*Waiting for you* (${FLOOD})`);
    const first = decisionIds(carols.blocks);
    expect(first.length).toBeGreaterThan(10);
    expect(first).toEqual([...first].sort((a, b) => a - b));
    expect(first).not.toContain(card.actionId);
    expect(viewText(carols.blocks)).toContain(`Showing 1–${first.length} of ${FLOOD}, oldest first; ${FLOOD - first.length} more after these.`);

    // Next page: the requests after the last one shown, and the Home stays on that page when it is republished.
    const second = await clickOnHome(bot, CAROL, pageButton(carols.blocks, 'Next page →')!);
    const secondIds = decisionIds(second.blocks);
    expect(secondIds[0]).toBeGreaterThan(first.at(-1)!);
    expect(viewText(second.blocks)).toContain(`Showing ${first.length + 1}–${first.length + secondIds.length} of ${FLOOD}`);
    // (A click there that changes nothing republishes her Home with a notice: the same page.)
    const approve = (second.blocks as Block[]).find((b) => b.block_id === `approval:${secondIds[0]}`)!.elements[0] as Block;
    const noticed = await clickOnHome(bot, CAROL, { ...approve, block_id: `approval:${secondIds[0]}` });
    expect(viewText(noticed.blocks)).toContain(':warning:');
    expect(decisionIds(noticed.blocks)).toEqual(secondIds);
    const back = await clickOnHome(bot, CAROL, pageButton(second.blocks, '← First page')!);
    expect(decisionIds(back.blocks)).toEqual(first);

    // /approvals says the same count, and its Next page replaces the answer with the next requests.
    const responseUrl = h.fake.responseUrl({ channel: CHANNEL, user: CAROL });
    const answered = h.fake.callsTo('response_url').length;
    await bot.send.command({ command: '/approvals', text: '', user: CAROL, channel: CHANNEL, responseUrl });
    await h.fake.waitFor(() => h.fake.callsTo('response_url').length > answered);
    const list = h.fake.callsTo('response_url')[answered]!;
    expect(list.args.text).toBe(`${FLOOD} requests are waiting for you.`);
    const listBlocks = list.args.blocks as Block[];
    expect(blockLimitErrors(listBlocks)).toEqual([]);
    const listIds = decisionIds(listBlocks);
    expect(listIds).toEqual(first.slice(0, listIds.length));
    const next = pageButton(listBlocks, 'Next page →')!;
    const path = new URL(responseUrl).pathname;
    await bot.send.interaction(
      blockActionsPayload({ user: CAROL, channel: CHANNEL, messageTs: '1726133799.000100', isEphemeral: true, actionId: next.action_id, blockId: 'inbox:page', value: next.value, responseUrl }),
    );
    const replaced = await h.fake.waitFor((c) => c.method === 'response_url' && c.path === path && c.args.replace_original === true);
    const replacedIds = decisionIds(replaced.args.blocks as Block[]);
    expect(replacedIds[0]).toBe(first[listIds.length]);
    expect(viewText(replaced.args.blocks as Block[])).toContain(`Showing ${listIds.length + 1}–${listIds.length + replacedIds.length} of ${FLOOD}`);

    // Bob's /approvals agrees with his Home.
    const bobsAnswer = h.fake.callsTo('response_url').length;
    await bot.send.command({ command: '/approvals', text: '', user: BOB, channel: CHANNEL, responseUrl: h.fake.responseUrl({ channel: CHANNEL, user: BOB }) });
    await h.fake.waitFor(() => h.fake.callsTo('response_url').length > bobsAnswer);
    expect(h.fake.callsTo('response_url')[bobsAnswer]!.args.text).toBe('1 request is waiting for you.');
  });
});
