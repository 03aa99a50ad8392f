import { expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { createTool, type Tool } from '../../src/agent/tool.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { Policy } from '../../src/approvals/policy-types.js';
import { attachMcpServers } from '../../src/mcp/attach-mcp-servers.js';
import { STATED_REASON_FIELD } from '../../src/agent/stated-reason.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { callLog, mcpServersClosedAfterEach, rugPull, stdioTracker } from '../helpers/mcp.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { clickButton, mention, slackHarness, startBot, textOf, waitForCard, waitForText, waitForUpdate, type AgentDeps } from '../helpers/slack-bot.js';

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';

/**
 * Through Slack: an approval is of what will actually happen. A call whose state (its preview) or
 * whose MCP tool definition moved between the card and the call does not run as approved; a new
 * card asks again, and only its approval runs it.
 */
describeOnOneBackend('approvals bound to what will happen, in Slack, on %s', (backend) => {
  const h = slackHarness(backend);
  const attached = mcpServersClosedAfterEach();

  /** The bot (as h.bot) and its agent `ops`, on a model scripted with `steps`, with `tools`, under `policy`. */
  async function startOps(steps: ScriptStep[], tools: Record<string, Tool> = {}, policy: Policy = definePolicy({})) {
    const model = scriptedModel(steps);
    let agent!: Agent;
    const b = (h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps: AgentDeps) => (agent = new Agent({ id: 'ops', model, tools, storage: h.database, policy, ...deps })),
    }));
    return { b, agent };
  }

  /**
   * The bot with the tracker MCP server (stdio, its create_issue changed through `rug`), on a
   * model that files one issue and then says "Filed the issue.".
   */
  async function bootWithTracker(policy: Policy) {
    const log = callLog();
    const rug = rugPull();
    const { b, agent } = await startOps([{ toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Printer on fire' } }] }, { text: 'Filed the issue.' }], {}, policy);
    attached.push(await attachMcpServers(agent, [stdioTracker(log.path, {}, rug.path)], { logger: b.agent.runtime.logger, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } }));
    return { b, log, rug };
  }

  it('a record changed after its card was posted: approving it posts a new card, and only that one runs the call', async () => {
    const record = { id: 'abc', status: 'active', version: 1 };
    const executed: string[] = [];
    const setStatus = createTool({
      id: 'set_status',
      description: 'Set the status of a record.',
      inputSchema: z.object({ id: z.string(), status: z.enum(['active', 'archived']) }),
      requireApproval: true,
      preview: async ({ id, status }) => ({
        fields: [{ label: 'Record', value: `${id}, version ${record.version}` }],
        diff: [{ label: 'Status', before: record.status, after: status }],
        stateDigest: `v${record.version}`,
      }),
      execute: async ({ id, status }) => {
        executed.push(`${id}:${status}@v${record.version}`);
        Object.assign(record, { status, version: record.version + 1 });
        return { id, status };
      },
    });
    const { b } = await startOps(
      [
        { toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived', [STATED_REASON_FIELD]: 'The customer closed their account.' } }] },
        { text: 'Archived abc.' },
      ],
      { set_status: setStatus },
    );
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'archive abc' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const row = (await b.agent.findRequest(card.actionId))!;
    expect(b.agent.bindingOf(row)).toMatchObject({ statedReason: 'The customer closed their account.', preview: { stateDigest: 'v1', diff: [{ before: 'active', after: 'archived' }] } });
    // The card shows the agent's reason as its words, and the preview: the record now and after.
    expect(textOf(card.call)).toContain(":speech_balloon: *The agent's stated reason* (its own words, not checked):\n>The customer closed their account.");
    expect(textOf(card.call)).toContain("*Preview* (the tool's, now → after the call):\n*Record:* `abc, version 1`\n*Status:* `active` → `archived`");

    record.version = 2; // someone else edited the record while the card waited
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    const second = await waitForCard(h.fake, thread, 'approval', 1);
    expect(second.actionId).not.toBe(card.actionId);
    expect(executed).toEqual([]);
    const askedAgain = (await b.agent.findRequest(second.actionId))!;
    expect(b.agent.bindingOf(askedAgain)).toMatchObject({ askedAgain: { fromActionId: card.actionId, why: 'state-changed' }, preview: { stateDigest: 'v2' }, statedReason: 'The customer closed their account.' });
    expect(textOf(second.call)).toContain('set_status');
    expect(textOf(second.call)).toContain(`:arrows_counterclockwise: *Asked again:* the record changed since it was approved. Request #${card.actionId} was approved, but its call did not run.`);
    expect(textOf(second.call)).toContain('*Record:* `abc, version 2`');

    await clickButton(b, second, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, second, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Archived abc.');
    expect(executed).toEqual(['abc:archived@v2']);
    const events = (await listAuditEvents(h.database.db, { runId: row.run_id })).map((e) => e.event);
    expect(events).toEqual(['requested', 'approved', 'consumed', 'superseded', 'requested', 'approved', 'consumed', 'executed']);
  });

  it('a preview that fails on a tool that asks anyway: the card says the preview failed and why, escaped, and the agent’s reason is quoted as its words', async () => {
    const executed: string[] = [];
    const archive = createTool({
      id: 'archive_record',
      description: 'Archive a record.',
      inputSchema: z.object({ id: z.string() }),
      requireApproval: true,
      onPreviewError: 'ask',
      preview: async () => {
        throw new Error('CRM timed out <!channel>');
      },
      execute: async ({ id }) => {
        executed.push(id);
        return { id };
      },
    });
    const { b } = await startOps([{ toolCalls: [{ toolName: 'archive_record', args: { id: 'abc', [STATED_REASON_FIELD]: 'Asked by <!here> *everyone*' } }] }, { text: 'Archived.' }], { archive_record: archive });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'archive abc' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const text = textOf(card.call);
    expect(text).toContain(':warning: *The preview failed:* ');
    expect(text).toContain('CRM timed out &lt;!channel&gt;');
    expect(text).toContain('>Asked by &lt;!here&gt; *everyone*');
    expect(text).not.toContain('<!here>');
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Archived.');
    expect(executed).toEqual(['abc']);
  });

  it('a preview that fails right before the approved call runs: the call does not run, and its card says why it was blocked', async () => {
    let up = true;
    const executed: string[] = [];
    const archive = createTool({
      id: 'archive_record',
      description: 'Archive a record.',
      inputSchema: z.object({ id: z.string() }),
      requireApproval: true,
      preview: async ({ id }) => {
        if (!up) throw new Error('CRM is down');
        return { fields: [{ label: 'Record', value: id }], stateDigest: 'v1' };
      },
      execute: async ({ id }) => {
        executed.push(id);
        return { id };
      },
    });
    const { b } = await startOps([{ toolCalls: [{ toolName: 'archive_record', args: { id: 'abc' } }] }, { text: 'Could not archive.' }], { archive_record: archive });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'archive abc' });
    const card = await waitForCard(h.fake, thread, 'approval');
    up = false;
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    const blocked = await waitForUpdate(h.fake, card, ':warning: Blocked:');
    expect(textOf(blocked)).toContain(':warning: Blocked: it did not run because its preview failed right before it was to run, so the state it was approved for could not be checked');
    await waitForText(h.fake, thread, 'Could not archive.');
    expect(executed).toEqual([]);
  });

  it("an MCP server changes its tool's description after the approval: a new card, the server not called until it is approved", async () => {
    const { b, log, rug } = await bootWithTracker(definePolicy({}));
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'file an issue' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(textOf(card.call)).toContain('*MCP server:* `tracker`, tool `create_issue`');

    await rug.pull('silent'); // no list_changed: only re-listing before the call finds it
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    const second = await waitForCard(h.fake, thread, 'approval', 1);
    expect(log.lines()).toEqual([]);
    expect(b.agent.bindingOf((await b.agent.findRequest(second.actionId))!).askedAgain).toMatchObject({
      fromActionId: card.actionId,
      why: 'tool-changed',
      changes: [{ part: 'description', before: 'Create an issue in the tracker.', after: expect.stringContaining('audit@elsewhere.example') }],
    });
    expect(b.logs.some((l) => l.includes('the MCP server changed the tool since the call was approved; asked again'))).toBe(true);
    expect(textOf(second.call)).toContain('*Asked again:* the MCP server changed this tool since it was approved: description “Create an issue in the tracker.” → “');
    expect(textOf(second.call)).toContain('audit@elsewhere.example');

    await clickButton(b, second, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Filed the issue.');
    expect(log.lines()).toEqual(['create_issue Printer on fire']);
  });
  it('an MCP server changes its tool while the request waits for a second approval: the redrawn card says what changed, and that approving asks again', async () => {
    const { b, log, rug } = await bootWithTracker(definePolicy({ tools: { 'tracker.*': { requireApproval: true, quorum: 2 } } }));
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'file an issue' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(textOf(card.call)).not.toContain('changed this tool');

    await rug.pull('notify'); // the server says its tools changed: the agent lists them again
    const row = (await b.agent.findRequest(card.actionId))!;
    await expect.poll(() => b.agent.bindingOf(row).toolChanged?.map((c) => c.part), { timeout: 10_000 }).toEqual(['description']);
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    const redrawn = await waitForUpdate(h.fake, card, '1 of 2 approvals');
    expect(textOf(redrawn)).toContain(':warning: *The MCP server changed this tool since it was asked for:* description “Create an issue in the tracker.” → “');
    expect(textOf(redrawn)).toContain('Approving it asks again under the new definition.');
    expect(log.lines()).toEqual([]);
  });
});
