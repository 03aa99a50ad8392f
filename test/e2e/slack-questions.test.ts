import { beforeAll, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { createDemoTables, demoDb } from '../../src/demo/demo-tables.js';
import { createDeployServiceTool } from '../../src/demo/tools/deploy-service.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { cardActions, clickButton, freshTs, mention, startBot, textOf, waitForCard, waitForEphemeral, waitForText, waitForUpdate, type AgentDeps, type Bot, slackHarness, type PostedCard } from '../helpers/slack-bot.js';
import { blockActionsPayload, messageEnvelope } from '../../src/simulator/index.js';

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';

describeOnOneBackend('Slack questions and suspended tools on %s', (backend) => {
  const h = slackHarness(backend);
  // The deploy tool writes to the demo's tables, which only the demo creates.
  beforeAll(() => createDemoTables(h.database.db));

  async function boot(steps: ScriptStep[], options: { autoResume?: boolean } = {}) {
    const model = scriptedModel(steps);
    h.bot = await startBot({ fake: h.fake, db: h.database.db,
      makeAgent: (deps: AgentDeps) =>
        new Agent({
          id: 'ops',
          model,
          tools: { ask_user: askUserTool, deploy_service: createDeployServiceTool({ db: h.database.db }) },
          storage: h.database,
          policy: definePolicy({}),
          memory: true,
          ...(options.autoResume ? { defaultOptions: { autoResumeSuspendedTools: true } } : {}),
          ...deps,
        }),
    });
    return { b: h.bot, model };
  }

  const ask = (question: string, options?: string[], selectionMode?: 'single_select' | 'multi_select'): ScriptStep => ({
    toolCalls: [
      {
        toolName: 'ask_user',
        args: { question, ...(options ? { options: options.map((label) => ({ label })) } : {}), ...(selectionMode ? { selectionMode } : {}) },
      },
    ],
  });

  function select(b: Bot, card: PostedCard, user: string, type: 'radio_buttons' | 'static_select' | 'checkboxes' | 'multi_static_select', values: string[]) {
    const actions = cardActions(card.blocks, 'question')!;
    const element = (actions.elements as Array<{ action_id: string; type: string; options: Array<{ text: { text: string }; value: string }> }>).find(
      (e) => e.action_id === ACTION_IDS.questionAnswer,
    )!;
    expect(element.type).toBe(type);
    const chosen = values.map((v) => element.options.find((o) => o.value === v)!).map((o) => ({ text: { type: 'plain_text' as const, text: o.text.text }, value: o.value }));
    const multi = type === 'checkboxes' || type === 'multi_static_select';
    return clickOnCard(b, card, user, ACTION_IDS.questionAnswer, {
      actionType: type,
      ...(multi ? { selectedOptions: chosen } : { selectedOption: chosen[0]! }),
    });
  }

  function submitChoices(b: Bot, card: PostedCard, user: string, type: 'checkboxes' | 'multi_static_select', values: string[]) {
    const actions = cardActions(card.blocks, 'question')!;
    const submit = (actions.elements as Array<{ action_id: string; value?: string }>).find((e) => e.action_id === ACTION_IDS.questionSubmit)!;
    const selected = values.map((value) => ({ text: { type: 'plain_text', text: value }, value }));
    return clickOnCard(b, card, user, ACTION_IDS.questionSubmit, {
      value: submit.value!,
      state: { values: { [actions.block_id]: { [ACTION_IDS.questionAnswer]: { type, selected_options: selected } } } },
    });
  }

  /** A block_actions delivery for an element of the card's question actions block. */
  function clickOnCard(b: Bot, card: PostedCard, user: string, actionId: string, details: Partial<Parameters<typeof blockActionsPayload>[0]>) {
    const actions = cardActions(card.blocks, 'question')!;
    return b.send.interaction(
      blockActionsPayload({ user, channel: card.channel, messageTs: card.ts, threadTs: card.threadTs, actionId, blockId: actions.block_id, ...details }),
    );
  }

  function reply(b: Bot, thread: { channel: string; threadTs: string }, user: string, text: string) {
    return b.send.event(messageEnvelope({ channel: thread.channel, ts: freshTs(), threadTs: thread.threadTs, user, text }));
  }

  it('single select as radio buttons: only the requester may answer; the card shows the answer and who gave it', async () => {
    const { b, model } = await boot([ask('Which environment?', ['staging', 'production']), { text: 'Going with production.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'deploy api' });
    const card = await waitForCard(h.fake, thread, 'question');
    expect(textOf(card.call)).toContain(`Question for <@${REQUESTER}>`);

    await select(b, card, ALICE, 'radio_buttons', ['1']);
    await waitForEphemeral(h.fake, ALICE, `Only <@${REQUESTER}> can answer`);
    await select(b, card, REQUESTER, 'radio_buttons', ['1']);
    await waitForUpdate(h.fake, card, `Answered *production* by <@${REQUESTER}>`);
    await waitForText(h.fake, thread, 'Going with production.');
    expect(lastToolResults(model)).toEqual([
      expect.objectContaining({ output: { type: 'json', value: { content: 'User answered: production', isError: false } } }),
    ]);
  });

  it('single select with more than 10 options is a static select menu', async () => {
    const labels = Array.from({ length: 15 }, (_, i) => `region-${i + 1}`);
    const { b, model } = await boot([ask('Which region?', labels), { text: 'Region chosen.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'pick a region' });
    const card = await waitForCard(h.fake, thread, 'question');
    await select(b, card, REQUESTER, 'static_select', ['12']);
    await waitForUpdate(h.fake, card, 'region-13');
    await waitForText(h.fake, thread, 'Region chosen.');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { content: 'User answered: region-13', isError: false } } });
  });

  it('multi select as checkboxes: ticking changes nothing, Submit answers with every ticked label', async () => {
    const { b, model } = await boot([ask('Which services?', ['api', 'web', 'worker'], 'multi_select'), { text: 'Will do api and worker.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'restart services' });
    const card = await waitForCard(h.fake, thread, 'question');
    const tick = await select(b, card, REQUESTER, 'checkboxes', ['0']);
    expect(tick.status).toBe(200);
    await submitChoices(b, card, REQUESTER, 'checkboxes', ['0', '2']);
    await waitForUpdate(h.fake, card, 'api, worker');
    await waitForText(h.fake, thread, 'Will do api and worker.');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { content: 'User answered: api, worker', isError: false } } });
    expect(h.fake.callsTo('chat.update')).toHaveLength(1);
  });

  it('multi select with more than 10 options is a multi-select menu with Submit', async () => {
    const labels = Array.from({ length: 12 }, (_, i) => `svc-${i}`);
    const { b, model } = await boot([ask('Which ones?', labels, 'multi_select'), { text: 'OK.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'choose' });
    const card = await waitForCard(h.fake, thread, 'question');
    expect(cardActions(card.blocks, 'question')!.elements[0].type).toBe('multi_static_select');
    await submitChoices(b, card, REQUESTER, 'multi_static_select', ['11']);
    await waitForText(h.fake, thread, 'OK.');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { content: 'User answered: svc-11', isError: false } } });
  });

  it('free text: the requester answers by replying in the thread; others are told they cannot', async () => {
    const { b, model } = await boot([ask('What should the release be called?'), { text: 'Named it.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'name the release' });
    const card = await waitForCard(h.fake, thread, 'question');
    expect(textOf(card.call)).toContain('Reply in this thread');
    await reply(b, thread, ALICE, 'not me');
    await waitForEphemeral(h.fake, ALICE, `Only <@${REQUESTER}> can answer`);
    await reply(b, thread, REQUESTER, 'Blue Falcon & <friends>');
    await waitForUpdate(h.fake, card, `Answered *Blue Falcon &amp; &lt;friends&gt;* by <@${REQUESTER}>`);
    await waitForText(h.fake, thread, 'Named it.');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { content: 'User answered: Blue Falcon & <friends>', isError: false } } });
  });

  it('more options than a menu holds are not dropped: the card says so and a thread reply can pick a hidden one', async () => {
    const labels = Array.from({ length: 120 }, (_, i) => `opt-${i + 1}`);
    const { b, model } = await boot([ask('Pick one', labels), { text: 'Picked.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'pick' });
    const card = await waitForCard(h.fake, thread, 'question');
    expect(textOf(card.call)).toContain('20 more options are not shown');
    await reply(b, thread, REQUESTER, 'opt-117');
    await waitForText(h.fake, thread, 'Picked.');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { content: 'User answered: opt-117', isError: false } } });
  });

  it('deploy to production confirmed with the Yes button (a one-boolean resume schema needs no form)', async () => {
    const { b } = await boot([
      { toolCalls: [{ toolName: 'deploy_service', args: { service: 'api', environment: 'production', version: 'v1.2.3' } }] },
      { text: 'Deployed api v1.2.3 to production.' },
    ]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'deploy api v1.2.3 to prod' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    expect(textOf(card.call)).toContain('Deploy api v1.2.3 to production?');
    expect(textOf(card.call)).not.toContain('Respond');

    await clickButton(b, card, REQUESTER, ACTION_IDS.suspensionYes);
    await waitForUpdate(h.fake, card, `Answered *Yes* by <@${REQUESTER}>`);
    await waitForText(h.fake, thread, 'Deployed api v1.2.3 to production.');
    expect(h.fake.callsTo('views.open')).toEqual([]);
    const rows = await demoDb(h.database.db).selectFrom('demo_deployments').selectAll().where('version', '=', 'v1.2.3').execute();
    expect(rows).toHaveLength(1);
  });

  it('deploy to production confirmed by a thread reply (auto-resume); a file shared without a comment answers nothing', async () => {
    const { b, model } = await boot(
      [
        { toolCalls: [{ toolName: 'deploy_service', args: { service: 'web', environment: 'production', version: 'v9.9.9' } }] },
        { text: 'Deployed web v9.9.9.' },
      ],
      { autoResume: true },
    );
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'deploy web v9.9.9 to prod' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    expect(textOf(card.call)).toContain('reply in this thread');
    // A file shared in the thread without a comment answers nothing: no extraction, no message.
    const file = messageEnvelope({ channel: thread.channel, ts: freshTs(), threadTs: thread.threadTs, user: REQUESTER, text: '', subtype: 'file_share' });
    expect((await b.send.event(file)).status).toBe(200);
    await b.slack.idle();
    expect(model.doStreamCalls).toHaveLength(1);
    expect(h.fake.callsTo('chat.postMessage')).toHaveLength(1);
    await reply(b, thread, REQUESTER, 'yes');
    await waitForUpdate(h.fake, card, `Answered *Yes* by <@${REQUESTER}>`);
    await waitForText(h.fake, thread, 'Deployed web v9.9.9.');
    const rows = await demoDb(h.database.db).selectFrom('demo_deployments').selectAll().where('version', '=', 'v9.9.9').execute();
    expect(rows).toHaveLength(1);
  });
});
