import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { agentWith } from '../helpers/agents.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { Policy } from '../../src/approvals/policy-types.js';
import { attachMcpServers } from '../../src/mcp/attach-mcp-servers.js';
import type { McpServerConfig } from '../../src/mcp/mcp-server-config.js';
import { silentLogger } from '../../src/logger.js';
import { callLog, eventually, mcpServersClosedAfterEach, stdioTracker } from '../helpers/mcp.js';
import { mcpHttpServer } from '../helpers/mcp-http-server.js';

const fast = { initialDelayMs: 50, maxDelayMs: 200 };

describeOnOneBackend('MCP tools behind approvals (%s)', (backend) => {
  let database: TestDatabase;
  const attached = mcpServersClosedAfterEach();
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database.close();
  });

  async function setUp(steps: ScriptStep[], servers: McpServerConfig[], policy: Policy = definePolicy({})) {
    const model = scriptedModel(steps);
    const agent = agentWith({ model, storage: database, policy });
    const mcp = await attachMcpServers(agent, servers, { logger: silentLogger, reconnect: fast });
    attached.push(mcp);
    return { agent, model, mcp };
  }

  it('offers a stdio server\'s tools as <server>__<tool> with their JSON Schemas, and runs one only once it is approved', async () => {
    const log = callLog();
    const { agent, model } = await setUp(
      [{ toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Printer on fire' } }] }, { text: 'Created.' }],
      [stdioTracker(log.path)],
    );
    expect(Object.keys(agent.tools).sort()).toEqual(['tracker__crash', 'tracker__create_issue', 'tracker__link_account', 'tracker__list_issues', 'tracker__set_priority', 'tracker__sync_repo', 'tracker__triage_issue']);
    const spec = agent.toolSpecs.find((s) => s.name === 'tracker__create_issue')!;
    expect(spec.inputSchema).toMatchObject({ type: 'object', properties: { title: { type: 'string', minLength: 1 } }, required: ['title'] });

    const first = await agent.generate('file it', { requester: 'U0REQ' });
    expect(first.finishReason).toBe('suspended');
    expect(first.suspendPayload).toMatchObject({ kind: 'approval', toolName: 'tracker__create_issue', args: { title: 'Printer on fire' } });
    expect(log.lines()).toEqual([]);
    const approved = await agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    expect(approved.text).toContain('Created.');
    expect(log.lines()).toEqual(['create_issue Printer on fire']);
    expect(JSON.stringify(lastToolResults(model))).toContain('Printer on fire');
  });

  it('an MCP tool is edited against the server\'s own JSON Schema, and the server gets the edited arguments', async () => {
    const log = callLog();
    const { agent } = await setUp(
      [{ toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Printer on fire' } }] }, { text: 'Created.' }],
      [stdioTracker(log.path)],
    );
    const first = await agent.generate('file it', { requester: 'U0REQ' });
    const actionId = (await agent.latestApprovalId(first.runId, (first.suspendPayload as { toolCallId: string }).toolCallId))!;
    const row = (await agent.findRequest(actionId))!;
    expect(agent.editSchemaOf(row)).toMatchObject({ type: 'object', properties: { title: { type: 'string', minLength: 1 } }, required: ['title'] });
    const invalid = await agent.editToolCall({ actionId, actor: { userId: 'U0ALICE' }, args: { title: '' } });
    expect(invalid.outcome).toBe('invalid-args');
    const edited = await agent.editToolCall({ actionId, actor: { userId: 'U0ALICE' }, args: { title: 'Printer smoking' } });
    expect(edited.outcome).toBe('approved');
    if (edited.outcome === 'approved') expect((await edited.stream!.result).text).toContain('Created.');
    expect(log.lines()).toEqual(['create_issue Printer smoking']);
  });

  it('never calls the server for a declined call', async () => {
    const log = callLog();
    const { agent, model } = await setUp(
      [{ toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'Nope' } }] }, { text: 'Declined.' }],
      [stdioTracker(log.path)],
    );
    const first = await agent.generate('file it', { requester: 'U0REQ' });
    const declined = await agent.declineToolCallGenerate({ runId: first.runId, actor: { userId: 'U0ALICE' }, reason: 'dup' });
    expect(declined.text).toContain('Declined.');
    expect(log.lines()).toEqual([]);
    expect(JSON.stringify(lastToolResults(model))).toContain('execution-denied');
  });

  it('runs a readOnlyHint tool without approval only where the policy trusts the hint; bad input never reaches the server', async () => {
    const log = callLog();
    const untrusted = await setUp([{ toolCalls: [{ toolName: 'tracker__list_issues', args: {} }] }, { text: 'ok' }], [stdioTracker(log.path)]);
    expect((await untrusted.agent.generate('list', { requester: 'U0REQ' })).finishReason).toBe('suspended');

    const trusted = await setUp(
      [{ toolCalls: [{ toolName: 'tracker__list_issues', args: {} }, { toolName: 'tracker__create_issue', args: { title: '' } }] }, { text: 'listed' }],
      [stdioTracker(log.path)],
      definePolicy({ mcp: { trustReadOnlyHint: ['tracker'] }, tools: { 'tracker.create_issue': { requireApproval: false } } }),
    );
    const result = await trusted.agent.generate('list', { requester: 'U0REQ' });
    expect(result.finishReason).toBe('stop');
    const results = JSON.stringify(lastToolResults(trusted.model));
    expect(results).toContain('no issues');
    expect(results).toMatch(/Invalid input for tool tracker__create_issue/);
    expect(log.lines()).toEqual([]);
  });

  it('matches policy rules by server and tool name (tracker.*)', async () => {
    const log = callLog();
    const { agent } = await setUp(
      [{ toolCalls: [{ toolName: 'tracker__list_issues', args: {} }] }, { text: 'ok' }],
      [stdioTracker(log.path)],
      definePolicy({ mcp: { trustReadOnlyHint: true }, tools: { 'tracker.*': { requireApproval: true, approvers: ['U0LEAD'] } } }),
    );
    const first = await agent.generate('list', { requester: 'U0REQ' });
    expect(first.finishReason).toBe('suspended');
    const refused = await agent.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U0ALICE' } });
    expect(refused.outcome).toBe('not-allowed');
    const approved = await agent.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U0LEAD' } });
    expect(approved.outcome).toBe('approved');
  });

  it('calls a Streamable HTTP server with its headers, approved like any tool', async () => {
    const log = callLog();
    const http = await mcpHttpServer({ callLog: log.path, requireHeader: ['authorization', 'Bearer t0ken'] });
    try {
      const { agent } = await setUp(
        [{ toolCalls: [{ toolName: 'web__create_issue', args: { title: 'Over HTTP' } }] }, { text: 'done' }],
        [{ name: 'web', transport: 'http', url: http.url, headers: { authorization: 'Bearer t0ken' } }],
      );
      const first = await agent.generate('file it', { requester: 'U0REQ' });
      await agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U0ALICE' } });
      expect(log.lines()).toEqual(['create_issue Over HTTP']);
    } finally {
      await http.stop();
    }
  });

  it('turns a server\'s form into a suspension and passes the answer back inside the same call', async () => {
    const log = callLog();
    const { agent, model } = await setUp(
      [{ toolCalls: [{ toolName: 'tracker__triage_issue', args: { id: 7 } }] }, { text: 'Triaged.' }],
      [stdioTracker(log.path)],
      definePolicy({ tools: { 'tracker.triage_issue': { requireApproval: false } } }),
    );
    const first = await agent.generate('triage 7', { requester: 'U0REQ' });
    expect(first.finishReason).toBe('suspended');
    expect(first.suspendPayload).toMatchObject({
      kind: 'suspension',
      suspendPayload: {
        kind: 'mcp-elicitation',
        mode: 'form',
        server: 'tracker',
        message: 'How should issue #7 be triaged?',
        form: {
          fields: [
            { name: 'severity', required: true, field: { type: 'enum', options: [{ value: 'low', label: 'Low' }, { value: 'high', label: 'High' }] } },
            { name: 'estimate', required: true, field: { type: 'integer', minimum: 1, maximum: 30 } },
            { name: 'due', required: false, field: { type: 'string', format: 'date' } },
            { name: 'notify', required: false, field: { type: 'boolean', default: true } },
          ],
        },
      },
    });
    const done = await agent.resumeGenerate({ action: 'accept', content: { severity: 'high', estimate: 3 } }, { runId: first.runId, actor: { userId: 'U0REQ' } });
    expect(done.text).toContain('Triaged.');
    expect(log.lines()).toHaveLength(1);
    expect(JSON.parse(log.lines()[0]!.replace('triage_issue 7 accept ', ''))).toEqual({ severity: 'high', estimate: 3 });
    expect(JSON.stringify(lastToolResults(model))).toContain('Triaged #7');
  });

  it('tells the model, and does not call again, when the answer comes after the server stopped waiting', async () => {
    const log = callLog();
    const { agent, model, mcp } = await setUp(
      [{ toolCalls: [{ toolName: 'tracker__set_priority', args: { id: 1 } }] }, { text: 'Could not.' }],
      [stdioTracker(log.path)],
      definePolicy({ tools: { 'tracker.*': { requireApproval: false } } }),
    );
    const first = await agent.generate('prioritise 1', { requester: 'U0REQ' });
    expect(first.suspendPayload?.suspendPayload).toMatchObject({ mode: 'form', waitsInCallUntil: expect.any(String) });
    // As after a restart: the connection (and the call waiting inside it) is gone.
    await mcp.close();
    const done = await agent.resumeGenerate({ action: 'accept', content: { priority: 'p1' } }, { runId: first.runId, actor: { userId: 'U0REQ' } });
    expect(done.text).toContain('Could not.');
    expect(JSON.stringify(lastToolResults(model))).toMatch(/no longer waiting for this answer/);
    expect(log.lines()).toEqual([]);
  });

  it('survives a crashed stdio server: a tool error for the call, quick errors while it is down, its tools back once it restarts', async () => {
    const log = callLog();
    const { agent, model, mcp } = await setUp(
      [
        { toolCalls: [{ toolName: 'tracker__crash', args: {} }] },
        { text: 'crashed' },
        { toolCalls: [{ toolName: 'tracker__create_issue', args: { title: 'after the crash' } }] },
        { text: 'created' },
      ],
      [stdioTracker(log.path)],
      definePolicy({ tools: { 'tracker.*': { requireApproval: false } } }),
    );
    const crashed = await agent.generate('crash it', { requester: 'U0REQ' });
    expect(crashed.text).toContain('crashed');
    expect(JSON.stringify(lastToolResults(model))).toMatch(/MCP server tracker went away during the call/);
    expect(log.lines()).toEqual(['crash']);
    // Started again by the reconnect once the backoff has passed; the crashed call is not repeated.
    await eventually(() => expect(mcp.connections.get('tracker')!.status).toBe('ready'));
    const after = await agent.generate('file it', { requester: 'U0REQ' });
    expect(after.text).toContain('created');
    expect(log.lines()).toEqual(['crash', 'create_issue after the crash']);
  });

  it('reports an HTTP server that is down as unavailable, and reconnects with backoff when it is back', async () => {
    const log = callLog();
    const http = await mcpHttpServer({ callLog: log.path });
    try {
      const { agent, model, mcp } = await setUp(
        [
          { toolCalls: [{ toolName: 'web__create_issue', args: { title: 'while down' } }] },
          { text: 'failed' },
          { toolCalls: [{ toolName: 'web__create_issue', args: { title: 'when back' } }] },
          { text: 'created' },
        ],
        [{ name: 'web', transport: 'http', url: http.url }],
        definePolicy({ tools: { 'web.*': { requireApproval: false } } }),
      );
      await http.stop();
      const down = await agent.generate('file it', { requester: 'U0REQ' });
      expect(down.text).toContain('failed');
      expect(JSON.stringify(lastToolResults(model))).toMatch(/MCP server web (is unavailable|went away during the call)/);
      await http.start();
      await eventually(() => expect(mcp.connections.get('web')!.status).toBe('ready'));
      const back = await agent.generate('file it', { requester: 'U0REQ' });
      expect(back.text).toContain('created');
      expect(log.lines()).toEqual(['create_issue when back']);
    } finally {
      await http.stop();
    }
  });

  it('a server that refuses a call until the user visits a URL: the request survives a restart, and the call is made again once answered', async () => {
    const log = callLog();
    const steps: ScriptStep[] = [{ toolCalls: [{ toolName: 'tracker__sync_repo', args: {} }] }, { text: 'not reached' }];
    const before = await setUp(steps, [stdioTracker(log.path)], definePolicy({ tools: { 'tracker.*': { requireApproval: false } } }));
    const first = await before.agent.generate('sync', { requester: 'U0REQ' });
    expect(first.finishReason).toBe('suspended');
    expect(first.suspendPayload?.suspendPayload).toEqual({
      kind: 'mcp-elicitation',
      server: 'tracker',
      tool: 'sync_repo',
      mode: 'url',
      message: 'Authorise the tracker to read your repositories.',
      url: 'https://tracker.example.com/authorize?id=auth-1',
      elicitationId: 'auth-1',
    });
    // A restart: this process's agent and connections go; a new one answers the stored request.
    await before.mcp.close();
    const after = await setUp([{ text: 'Synced.' }], [stdioTracker(log.path)], definePolicy({ tools: { 'tracker.*': { requireApproval: false } } }));
    const done = await after.agent.resumeGenerate({ action: 'accept' }, { runId: first.runId, actor: { userId: 'U0REQ' } });
    expect(done.text).toContain('Synced.');
    expect(log.lines()).toEqual(['sync_repo needs-authorisation', 'sync_repo']);
  });

  it('a server down at start holds nothing up: its tools appear once it is reached, and a call by its name meanwhile is still an MCP call to the policy', async () => {
    const log = callLog();
    const http = await mcpHttpServer({ callLog: log.path });
    const url = http.url;
    await http.stop();
    const { agent, mcp } = await setUp([{ text: 'hi' }], [{ name: 'web', transport: 'http', url }], definePolicy({ defaults: { requireApproval: false } }));
    expect(mcp.connections.get('web')!.status).toBe('down');
    expect(Object.keys(agent.tools)).toEqual([]);
    // Not reached yet, yet a request for one of its tools is judged as an MCP tool's: approval required.
    expect(agent.requirementOf({ tool_name: 'web__create_issue', args: {}, path: ['ops'] }).requireApproval).toBe(true);
    try {
      await http.start();
      await eventually(() => expect(mcp.connections.get('web')!.status).toBe('ready'));
      expect(Object.keys(agent.tools)).toContain('web__create_issue');
    } finally {
      await http.stop();
    }
  });

  it('leaves out a server tool whose name the agent already uses for a tool of its own', async () => {
    const log = callLog();
    const { countingTool } = await import('../helpers/agents.js');
    const own = countingTool('tracker__list_issues');
    const agent = agentWith({ model: scriptedModel([{ text: 'hi' }]), storage: database, tools: { tracker__list_issues: own.tool } });
    const mcp = await attachMcpServers(agent, [stdioTracker(log.path)], { logger: silentLogger, reconnect: fast });
    attached.push(mcp);
    expect(agent.tools.tracker__list_issues).toBe(own.tool);
    expect(agent.tools.tracker__create_issue?.mcp).toEqual({ server: 'tracker', tool: 'create_issue' });
  });

  it('a question whose call times out is cancelled with the reason, and the run goes on without it', async () => {
    const log = callLog();
    const { agent, model } = await setUp(
      [{ toolCalls: [{ toolName: 'tracker__set_priority', args: { id: 3 } }] }, { text: 'The tracker gave up.' }],
      [stdioTracker(log.path, { timeoutMs: 1500 })],
      definePolicy({ tools: { 'tracker.*': { requireApproval: false } } }),
    );
    const first = await agent.generate('prioritise 3', { requester: 'U0REQ' });
    expect(first.finishReason).toBe('suspended');
    const { runs } = await agent.listSuspendedRuns();
    const actionId = runs.flatMap((r) => r.toolCalls).find((c) => c.runId === first.runId)!.actionId;
    const cancelled = await eventually(async () => {
      const row = await agent.findRequest(actionId);
      expect(row?.status).toBe('cancelled');
      return row!;
    });
    expect(cancelled.reason).toMatch(/^The MCP server tracker stopped waiting for this answer \(.*timed out/i);
    await eventually(() => expect(JSON.stringify(lastToolResults(model))).toMatch(/stopped waiting for this answer/));
    expect(log.lines()).toEqual([]);
  });
});
