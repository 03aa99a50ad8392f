import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { Policy } from '../../src/approvals/policy-types.js';
import { attachMcpServers } from '../../src/mcp/attach-mcp-servers.js';
import type { McpServerConfig } from '../../src/mcp/mcp-server-config.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { ageRecords } from '../helpers/age-records.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { callLog, eventually, mcpServersClosedAfterEach, stdioTracker } from '../helpers/mcp.js';
import { mcpHttpServer } from '../helpers/mcp-http-server.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { clickButton, mention, slackHarness, startBot, textOf, waitForCard, waitForText, waitForUpdate, type AgentDeps } from '../helpers/slack-bot.js';
import { blockActionsPayload, viewLimitErrors, viewSubmissionPayload } from '../../src/simulator/index.js';

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';

describeOnOneBackend('MCP tools in Slack on %s', (backend) => {
  const h = slackHarness(backend);
  const attached = mcpServersClosedAfterEach();

  async function boot(steps: ScriptStep[], servers: McpServerConfig[], policy: Policy = definePolicy({}), cardRepairAfterMs?: number) {
    const model = scriptedModel(steps);
    let agent!: Agent;
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      ...(cardRepairAfterMs !== undefined ? { cardRepairAfterMs } : {}),
      makeAgent: (deps: AgentDeps) => (agent = new Agent({ id: 'ops', model, storage: h.database, policy, ...deps })),
    });
    const mcp = await attachMcpServers(agent, servers, { logger: h.bot.agent.runtime.logger, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    attached.push(mcp);
    return { b: h.bot, model, mcp };
  }

  it('an MCP tool (stdio) gets an approval card; approved, the server runs it once and the answer is in the thread', async () => {
    const log = callLog();
    const { b } = await boot(
      [{ toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Printer <!here> on fire' } }] }, { text: 'Filed the issue.' }],
      [stdioTracker(log.path)],
    );
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'file an issue' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(textOf(card.call)).toContain('tracker__create_issue');
    expect(textOf(card.call)).toContain('Printer &lt;!here&gt; on fire');
    expect(textOf(card.call)).toContain('*MCP server:* `tracker`, tool `create_issue`');
    expect(log.lines()).toEqual([]);
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Filed the issue.');
    expect(log.lines()).toEqual(['create_issue Printer <!here> on fire']);
  });

  it('an MCP tool (Streamable HTTP) declined in Slack never reaches the server', async () => {
    const log = callLog();
    const http = await mcpHttpServer({ callLog: log.path });
    try {
      const { b, model } = await boot(
        [{ toolCalls: [{ toolName: 'web__create_issue', args: { title: 'dup' } }] }, { text: 'Not filed.' }],
        [{ name: 'web', transport: 'http', url: http.url }],
      );
      const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'file it' });
      const card = await waitForCard(h.fake, thread, 'approval');
      await clickButton(b, card, ALICE, ACTION_IDS.decline);
      const opened = await h.fake.waitFor('views.open');
      const view = opened.args.view as { private_metadata: string };
      await b.send.interaction(
        viewSubmissionPayload({ user: ALICE, callbackId: CALLBACK_IDS.declineModal, privateMetadata: view.private_metadata, stateValues: { reason: { reason: 'duplicate' } } }),
      );
      await waitForUpdate(h.fake, card, `Declined by <@${ALICE}>: duplicate`);
      await waitForText(h.fake, thread, 'Not filed.');
      expect(log.lines()).toEqual([]);
      expect(lastToolResults(model)).toEqual([
        expect.objectContaining({ output: { type: 'execution-denied', reason: expect.stringMatching(new RegExp(`^Tool call declined by ${ALICE}; \\S+ did not run\\. Their reason, in their own words: "duplicate"\\.$`)) } }),
      ]);
    } finally {
      await http.stop();
    }
  });

  it('a server that crashes mid-call: the model hears it, the bot keeps answering, and the server is back for the next mention', async () => {
    const log = callLog();
    const { b, model, mcp } = await boot(
      [
        { toolCalls: [{ toolName: 'tracker__crash', args: {} }] },
        { text: 'The tracker crashed.' },
        { toolCalls: [{ toolName: 'tracker__list_issues', args: {} }] },
        { text: 'Listed.' },
      ],
      [stdioTracker(log.path)],
      definePolicy({ tools: { 'tracker.*': { requireApproval: false } } }),
    );
    const first = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'crash it' });
    await waitForText(h.fake, first, 'The tracker crashed.');
    expect(JSON.stringify(lastToolResults(model))).toMatch(/MCP server tracker went away during the call/);
    expect(b.logs.filter((l) => l.includes('MCP server unavailable')).length).toBe(1);
    await eventually(() => expect(mcp.connections.get('tracker')!.status).toBe('ready'));
    const second = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'list' });
    await waitForText(h.fake, second, 'Listed.');
    expect(JSON.stringify(lastToolResults(model))).toContain('no issues');
    expect(log.lines()).toEqual(['crash']);
  });

  const noApproval = definePolicy({ tools: { 'tracker.*': { requireApproval: false } } });

  it('a form of several fields: a card with Answer and Decline, a modal with typed inputs, the answer back in the same call', async () => {
    const log = callLog();
    const { b } = await boot([{ toolCalls: [{ toolName: 'tracker__triage_issue', args: { id: 7 } }] }, { text: 'Triage recorded.' }], [stdioTracker(log.path)], noApproval);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'triage 7' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    const text = textOf(card.call);
    expect(text).toContain('How should issue #7 be triaged?');
    expect(text).toMatch(/waits for this answer inside its call until/);
    const buttons = card.blocks.find((bl) => bl.block_id === `suspension:${card.actionId}`)!.elements.map((e: { action_id: string }) => e.action_id);
    expect(buttons).toEqual([ACTION_IDS.elicitationAnswer, ACTION_IDS.elicitationDecline]);

    // Someone else may not answer for the requester.
    await clickButton(b, card, ALICE, ACTION_IDS.elicitationAnswer);
    await h.fake.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === ALICE);
    await clickButton(b, card, REQUESTER, ACTION_IDS.elicitationAnswer);
    const opened = await h.fake.waitFor('views.open');
    const view = opened.args.view as { private_metadata: string; callback_id: string; blocks: Array<{ type: string; block_id?: string; element?: { type: string; options?: unknown[] } }> };
    expect(view.callback_id).toBe(CALLBACK_IDS.elicitationModal);
    expect(viewLimitErrors(view, 'modal')).toEqual([]);
    expect(view.blocks.filter((bl) => bl.type === 'input').map((bl) => bl.element!.type)).toEqual(['radio_buttons', 'number_input', 'datepicker', 'radio_buttons']);

    const submit = (values: Record<string, Record<string, object>>) =>
      b.send.interaction(viewSubmissionPayload({ user: REQUESTER, callbackId: CALLBACK_IDS.elicitationModal, privateMetadata: view.private_metadata, stateValues: values as never }));
    const tooBig = await submit({ f0: { value: { type: 'radio_buttons', selected_option: { value: '1' } } }, f1: { value: { type: 'number_input', value: '99' } } });
    expect(JSON.parse(tooBig.body)).toEqual({ response_action: 'errors', errors: { f1: 'Enter at most 30.' } });
    expect(log.lines()).toEqual([]);

    const ok = await submit({
      f0: { value: { type: 'radio_buttons', selected_option: { value: '1' } } },
      f1: { value: { type: 'number_input', value: '3' } },
      f2: { value: { type: 'datepicker', selected_date: '2026-12-24' } },
      f3: { value: { type: 'radio_buttons', selected_option: { value: 'false' } } },
    });
    expect(ok.status).toBe(200);
    await waitForUpdate(h.fake, card, `Answered by <@${REQUESTER}>`);
    await waitForText(h.fake, thread, 'Triage recorded.');
    expect(log.lines()).toHaveLength(1);
    expect(log.lines()[0]).toMatch(/^triage_issue 7 accept /);
    expect(JSON.parse(log.lines()[0]!.replace('triage_issue 7 accept ', ''))).toEqual({ severity: 'high', estimate: 3, due: '2026-12-24', notify: false });
  });

  it('a form of one field is answered on the card itself; Decline tells the server no', async () => {
    const log = callLog();
    const { b } = await boot(
      [
        { toolCalls: [{ toolName: 'tracker__set_priority', args: { id: 1 } }] },
        { text: 'Priority set.' },
        { toolCalls: [{ toolName: 'tracker__set_priority', args: { id: 2 } }] },
        { text: 'Left alone.' },
      ],
      [stdioTracker(log.path)],
      noApproval,
    );
    const first = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'prioritise 1' });
    const card = await waitForCard(h.fake, first, 'suspension');
    const field = card.blocks.find((bl) => bl.block_id === `elicitation-field:${card.actionId}`)!;
    expect(field.type).toBe('actions');
    expect(field.elements[0].type).toBe('radio_buttons');
    await b.send.interaction(
      blockActionsPayload({
        user: REQUESTER,
        channel: card.channel,
        messageTs: card.ts,
        threadTs: card.threadTs,
        actionId: ACTION_IDS.elicitationValue,
        blockId: field.block_id,
        actionType: 'radio_buttons',
        selectedOption: { text: { type: 'plain_text', text: 'p1' }, value: '0' },
      }),
    );
    await waitForUpdate(h.fake, card, `Answered by <@${REQUESTER}>`);
    await waitForText(h.fake, first, 'Priority set.');
    expect(log.lines()).toEqual(['set_priority 1 accept {"priority":"p1"}']);

    const second = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'prioritise 2' });
    const card2 = await waitForCard(h.fake, second, 'suspension');
    await clickButton(b, card2, REQUESTER, ACTION_IDS.elicitationDecline);
    await waitForUpdate(h.fake, card2, `Declined by <@${REQUESTER}>`);
    await waitForText(h.fake, second, 'Left alone.');
    expect(log.lines()).toEqual(['set_priority 1 accept {"priority":"p1"}', 'set_priority 2 decline {}']);
  });

  it('a URL request shows the full URL and its domain as a link button (never fetched by the bot); Done tells the server', async () => {
    const log = callLog();
    const { b } = await boot([{ toolCalls: [{ toolName: 'tracker__link_account', args: {} }] }, { text: 'Linked.' }], [stdioTracker(log.path)], noApproval);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'link my account' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    const text = textOf(card.call);
    expect(text).toContain('`https://tracker.example.com/link?session=abc`');
    expect(text).toContain('*Domain:* tracker.example.com');
    const buttons = card.blocks.find((bl) => bl.block_id === `suspension:${card.actionId}`)!.elements as Array<{ action_id: string; url?: string }>;
    expect(buttons.map((e) => e.action_id)).toEqual([ACTION_IDS.elicitationOpenUrl, ACTION_IDS.elicitationDone, ACTION_IDS.elicitationDecline]);
    expect(buttons[0]!.url).toBe('https://tracker.example.com/link?session=abc');
    await clickButton(b, card, REQUESTER, ACTION_IDS.elicitationOpenUrl);
    expect(log.lines()).toEqual([]);
    await clickButton(b, card, REQUESTER, ACTION_IDS.elicitationDone);
    await waitForUpdate(h.fake, card, `Done by <@${REQUESTER}>`);
    await waitForText(h.fake, thread, 'Linked.');
    expect(log.lines()).toEqual(['link_account accept']);
  });

  it('a question whose call times out: the card comes to say so and the thread gets the run\'s answer, with no answer sent', async () => {
    const log = callLog();
    const { b } = await boot(
      [{ toolCalls: [{ toolName: 'tracker__set_priority', args: { id: 4 } }] }, { text: 'The tracker stopped waiting; nothing changed.' }],
      [stdioTracker(log.path, { timeoutMs: 1200 })],
      noApproval,
      1000,
    );
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'prioritise 4' });
    const card = await waitForCard(h.fake, thread, 'suspension');
    expect(textOf(card.call)).toMatch(/waits for this answer inside its call until/);
    await eventually(async () => expect((await b.agent.findRequest(card.actionId))?.status).toBe('cancelled'));
    // The run went on in the background and its answer is kept; the sweep, once that is older than
    // the repair delay, redraws the card and posts the kept answer.
    await eventually(async () => expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_results`.execute(h.database.db)).rows[0]!.n).toBe(1));
    await ageRecords(h.database.db);
    await b.slack.sweepExpired();
    await waitForUpdate(h.fake, card, /Cancelled: The MCP server tracker stopped waiting/);
    await h.fake.waitFor((c) => c.method === 'chat.postMessage' && textOf(c).includes('The tracker stopped waiting; nothing changed.'));
    expect(log.lines()).toEqual([]);
  });
});
