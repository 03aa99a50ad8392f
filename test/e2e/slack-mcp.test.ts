import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { Policy } from '../../src/approvals/policy-schema.js';
import { attachMcpServers, type AttachedMcpServers } from '../../src/mcp/attach-mcp-servers.js';
import type { McpServerConfig } from '../../src/mcp/mcp-server-config.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/blocks/action-ids.js';
import { backends } from '../helpers/db.js';
import { callLog, eventually, stdioTracker } from '../helpers/mcp.js';
import { mcpHttpServer } from '../helpers/mcp-http-server.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { clickButton, mention, slackHarness, startBot, textOf, waitForCard, waitForText, waitForUpdate, type AgentDeps } from '../helpers/slack-bot.js';
import { viewSubmissionPayload } from '../helpers/slack-requests.js';

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';

describe.each(backends)('MCP tools in Slack on %s', (backend) => {
  const h = slackHarness(backend);
  const attached: AttachedMcpServers[] = [];
  afterEach(async () => {
    await Promise.all(attached.splice(0).map((a) => a.close()));
  });

  async function boot(steps: ScriptStep[], servers: McpServerConfig[], policy: Policy = definePolicy({})) {
    const model = scriptedModel(steps);
    let agent!: Agent;
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
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
      expect(lastToolResults(model)).toEqual([expect.objectContaining({ output: { type: 'execution-denied', reason: 'duplicate' } })]);
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
});
