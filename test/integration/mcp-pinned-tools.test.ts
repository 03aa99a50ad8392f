import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { agentWith, collect } from '../helpers/agents.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { Policy } from '../../src/approvals/policy-types.js';
import { attachMcpServers } from '../../src/mcp/attach-mcp-servers.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { captureLogger } from '../helpers/slack-bot.js';
import { callLog, eventually, mcpServersClosedAfterEach, rugPull, stdioTracker } from '../helpers/mcp.js';
import { PULLED_DESCRIPTION } from '../fixtures/mcp/tracker-server.js';
import type { AgentChunk, ApprovalRequest } from '../../src/agent/api-types.js';

const approvalOf = (chunks: AgentChunk[]) => chunks.find((c) => c.type === 'tool-call-approval')?.payload as ApprovalRequest | undefined;

describeOnOneBackend('MCP tools pinned to their definition (%s)', (backend) => {
  let database: TestDatabase;
  const attached = mcpServersClosedAfterEach();
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database.close();
  });

  async function setUp(steps: ScriptStep[], policy: Policy = definePolicy({})) {
    const log = callLog();
    const rug = rugPull();
    const kept = captureLogger();
    const model = scriptedModel(steps);
    const agent = agentWith({ model, storage: database, policy, logger: kept.logger });
    const mcp = await attachMcpServers(agent, [stdioTracker(log.path, {}, rug.path)], { logger: kept.logger, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    attached.push(mcp);
    const logs = () => kept.logs.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as Record<string, unknown>);
    return { agent, model, mcp, log, rug, logs };
  }

  it('the request is pinned to the definition; changed without telling (no list_changed) after approval, the re-listing before the call catches it: asked again with what changed, never run as approved', async () => {
    const t = await setUp([{ toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Printer on fire' } }] }, { text: 'Filed.' }]);
    const first = await t.agent.stream('file it', { requester: 'U0REQ' });
    const asked = approvalOf(await collect(first))!;
    const row = (await t.agent.findRequest(asked.actionId))!;
    const pinned = t.agent.bindingOf(row).toolPin!;
    expect(pinned.definition).toMatchObject({ name: 'create_issue', description: 'Create an issue in the tracker.', inputSchema: { type: 'object', required: ['title'] } });
    expect(asked.toolDigest).toBe(pinned.digest);
    expect((await listAuditEvents(database.db, { runId: first.runId }))[0]!.detail).toEqual({ toolDigest: pinned.digest });

    await t.rug.pull('silent');
    const approved = await t.agent.approveToolCall({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    const again = approvalOf(await collect(approved))!;
    expect(t.log.lines()).toEqual([]);
    expect(again.askedAgain).toEqual({
      fromActionId: asked.actionId,
      why: 'tool-changed',
      changes: [{ part: 'description', before: 'Create an issue in the tracker.', after: PULLED_DESCRIPTION }],
    });
    expect(again.toolDigest).not.toBe(pinned.digest);
    expect(t.logs().some((l) => l.msg === 'the MCP server changed the tool since the call was approved; asked again' && JSON.stringify(l.changes).includes('audit@elsewhere'))).toBe(true);
    const superseded = (await listAuditEvents(database.db, { runId: first.runId })).find((e) => e.event === 'superseded')!;
    expect(superseded.detail).toMatchObject({ why: 'tool-changed', changes: [{ part: 'description' }] });
    // The model is given the tool as it is now.
    expect(t.agent.toolSpecs.find((s) => s.name === 'tracker__create_issue')!.description).toBe(PULLED_DESCRIPTION);

    const done = await t.agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    expect(done.text).toBe('Filed.');
    expect(t.log.lines()).toEqual(['create_issue Printer on fire']);
  });

  it('changed with list_changed while the request waits: the request says what changed, and approving it asks again', async () => {
    const t = await setUp([{ toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Printer on fire' } }] }, { text: 'Filed.' }]);
    const first = await t.agent.generate('file it', { requester: 'U0REQ' });
    const actionId = (await t.agent.latestApprovalId(first.runId, first.suspendPayload!.toolCallId))!;
    await t.rug.pull('notify');
    await eventually(() => expect(t.agent.tools.tracker__create_issue!.description).toBe(PULLED_DESCRIPTION));
    expect(t.agent.bindingOf((await t.agent.findRequest(actionId))!).toolChanged).toEqual([{ part: 'description', before: 'Create an issue in the tracker.', after: PULLED_DESCRIPTION }]);
    expect(t.logs().some((l) => l.msg === 'MCP tool definition changed: its calls are asked again and remembered approvals of the old one end' && l.tool === 'create_issue')).toBe(true);
    const again = await t.agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    expect(again.finishReason).toBe('suspended');
    expect(t.log.lines()).toEqual([]);
  });

  it('a schema the approved arguments no longer fit: the call does not run and the model is told why', async () => {
    const t = await setUp([{ toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Printer on fire' } }] }, { text: 'Not filed.' }]);
    const first = await t.agent.generate('file it', { requester: 'U0REQ' });
    await t.rug.pull('schema');
    await eventually(() => expect(t.agent.tools.tracker__create_issue!.inputJsonSchema).toMatchObject({ required: ['title', 'assignee'] }));
    const done = await t.agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    expect(done.text).toBe('Not filed.');
    expect(t.log.lines()).toEqual([]);
    expect(lastToolResults(t.model)[0]).toMatchObject({
      output: { type: 'error-text', value: expect.stringMatching(/^Tool tracker__create_issue did not run: its MCP server changed the tool \(input schema\) after the call was approved, and its arguments no longer fit it: .*assignee/) },
    });
  });

  it('a call made against a definition the server has changed since is not asked for: the model re-reads the tool', async () => {
    const t = await setUp([{ toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Printer on fire' } }] }, { text: 'It changed.' }]);
    await t.rug.pull('silent');
    const result = await t.agent.generate('file it', { requester: 'U0REQ' });
    expect(result.finishReason).toBe('stop');
    expect(lastToolResults(t.model)[0]).toMatchObject({
      output: { type: 'error-text', value: 'Tool tracker__create_issue did not run: its MCP server changed the tool (description) since you were given it. Read its description and input schema again before calling it.' },
    });
    expect(t.log.lines()).toEqual([]);
  });

  it('remembered approvals of the old definition end when the server changes the tool', async () => {
    const t = await setUp(
      [
        { toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Weekly report' } }] },
        { text: 'one' },
        { toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Weekly report' } }] },
        { text: 'two' },
        { toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Weekly report' } }] },
        { text: 'three' },
      ],
      definePolicy({ tools: { 'tracker.create_issue': { requireApproval: true, rememberFor: '1h' } } }),
    );
    const first = await t.agent.generate('file the report', { requester: 'U0REQ' });
    const decision = await t.agent.decideToolCall({ runId: first.runId, decision: 'approve', remember: true, actor: { userId: 'U0ALICE' } });
    if (decision.outcome === 'approved') await decision.stream!.result;
    const second = await t.agent.generate('again', { requester: 'U0REQ' });
    expect(second.text).toBe('two'); // ran under the remembered approval
    expect(t.log.lines()).toHaveLength(2);
    const [grant] = await t.agent.listRememberedGrants();
    expect(grant!.tool_digest).toMatch(/^[0-9a-f]{64}$/);

    await t.rug.pull('notify');
    await eventually(async () => expect(await t.agent.listRememberedGrants()).toEqual([]));
    const revoked = (await sql<{ event: string; detail: { reason: string; rememberedGrantId: number } }>`
      SELECT event, detail FROM audit_events WHERE event = 'remembered-revoked'`.execute(database.db)).rows.filter((r) => r.detail.rememberedGrantId === grant!.id);
    expect(revoked).toEqual([{ event: 'remembered-revoked', detail: expect.objectContaining({ reason: 'the MCP server tracker changed or dropped the tool', toolDigest: grant!.tool_digest }) }]);
    expect(t.logs().some((l) => l.msg === 'remembered approvals of replaced MCP tool definitions ended')).toBe(true);
    const third = await t.agent.generate('once more', { requester: 'U0REQ' });
    expect(third.finishReason).toBe('suspended');
    expect(t.log.lines()).toHaveLength(2);
  });
});
