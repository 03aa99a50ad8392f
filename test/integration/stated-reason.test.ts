import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { lastToolResults, scriptedModel } from '../helpers/scripted-model.js';
import { agentWith, collect } from '../helpers/agents.js';
import { createTool } from '../../src/agent/tool.js';
import { Agent } from '../../src/agent/agent.js';
import { fingerprint } from '../../src/approvals/fingerprint.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { STATED_REASON_FIELD } from '../../src/agent/stated-reason.js';
import type { ApprovalRequest } from '../../src/agent/api-types.js';

/** A tool with a strict schema (unknown keys refused), as Mastra users write them; records what execute got. */
function strictDelete(options: { requireApproval?: boolean } = {}) {
  const executed: unknown[] = [];
  const tool = createTool({
    id: 'delete_record',
    description: 'Delete a record.',
    inputSchema: z.strictObject({ id: z.string() }),
    requireApproval: options.requireApproval ?? true,
    execute: async (input) => {
      executed.push(input);
      return { deleted: input.id };
    },
  });
  return { tool, executed };
}

describeBackends("the agent's stated reason (%s)", (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('is offered to the model as an optional reserved field, kept with the request and its audit event, and never reaches execute or the fingerprint', async () => {
    const { tool, executed } = strictDelete();
    const hookSaw: unknown[] = [];
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'abc', [STATED_REASON_FIELD]: '  The user asked to remove the duplicate record abc.  ' } }] },
      { text: 'Deleted.' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, hooks: { beforeToolCall: ({ args }) => void hookSaw.push(args) } });
    const spec = agent.toolSpecs.find((s) => s.name === 'delete_record')!;
    expect(spec.inputSchema).toMatchObject({ properties: { id: { type: 'string' }, [STATED_REASON_FIELD]: { type: 'string', maxLength: 1000 } }, required: ['id'] });

    const stream = await agent.stream('delete abc', { requester: 'U0REQ' });
    const chunks = await collect(stream);
    const approval = chunks.find((c) => c.type === 'tool-call-approval')!.payload as ApprovalRequest;
    expect(approval.args).toEqual({ id: 'abc' });
    expect(approval.statedReason).toBe('The user asked to remove the duplicate record abc.');
    expect(approval.fingerprint).toBe(fingerprint('delete_record', { id: 'abc' }));
    expect(chunks.find((c) => c.type === 'tool-call')!.payload).toMatchObject({ args: { id: 'abc' } });
    const row = (await agent.findRequest(approval.actionId))!;
    expect(row.stated_reason).toBe('The user asked to remove the duplicate record abc.');
    expect(row.args).toEqual({ id: 'abc' });
    expect(agent.bindingOf(row)).toEqual({ statedReason: 'The user asked to remove the duplicate record abc.' });
    const requested = (await listAuditEvents(database.db, { runId: stream.runId })).find((e) => e.event === 'requested')!;
    expect(requested.detail).toEqual({ statedReason: 'The user asked to remove the duplicate record abc.' });
    expect((await agent.listSuspendedRuns()).runs[0]!.toolCalls[0]!.args).toEqual({ id: 'abc' });

    const done = await agent.approveToolCallGenerate({ runId: stream.runId, actor: { userId: 'U0ALICE' } });
    expect(done.text).toBe('Deleted.');
    expect(executed).toEqual([{ id: 'abc' }]);
    expect(hookSaw).toEqual([{ id: 'abc' }]);
    expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'json', value: { deleted: 'abc' } } });
  });

  it('a call that needs nobody drops it; blank is no reason; a reason that is not text or too long is the model\'s to fix', async () => {
    const { tool, executed } = strictDelete({ requireApproval: false });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'delete_record', args: { id: 'a1', [STATED_REASON_FIELD]: 'cleanup' } },
          { toolName: 'delete_record', args: { id: 'a2', [STATED_REASON_FIELD]: 42 } },
          { toolName: 'delete_record', args: { id: 'a3', [STATED_REASON_FIELD]: 'x'.repeat(1001) } },
        ],
      },
      { text: 'ok' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    await agent.generate('delete them');
    expect(executed).toEqual([{ id: 'a1' }]);
    const results = lastToolResults(model);
    expect(results[1]).toMatchObject({ output: { type: 'error-text', value: `Invalid input for tool delete_record: ${STATED_REASON_FIELD}: expected text` } });
    expect(results[2]).toMatchObject({ output: { type: 'error-text', value: `Invalid input for tool delete_record: ${STATED_REASON_FIELD}: at most 1000 characters (this has 1001)` } });

    const { tool: gated } = strictDelete();
    const blank = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'b', [STATED_REASON_FIELD]: '   ' } }] }]), tools: { delete_record: gated }, storage: database });
    const paused = await blank.generate('delete b');
    const row = (await blank.findRequest((await blank.listSuspendedRuns()).runs.find((r) => r.runId === paused.runId)!.toolCalls[0]!.actionId))!;
    expect(row.stated_reason).toBeNull();
    expect(row.args).toEqual({ id: 'b' });
  });

  it('a tool whose own schema has the field keeps it as its argument: passed to execute, fingerprinted, no stated reason', async () => {
    const executed: unknown[] = [];
    const tool = createTool({
      id: 'approve_budget',
      description: 'Approve a budget line, with the approval reason the finance system records.',
      inputSchema: z.object({ line: z.string(), [STATED_REASON_FIELD]: z.string() }),
      requireApproval: true,
      execute: async (input) => void executed.push(input),
    });
    const args = { line: 'L-7', [STATED_REASON_FIELD]: 'Q3 plan' };
    const agent = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'approve_budget', args }] }, { text: 'ok' }]), tools: { approve_budget: tool }, storage: database });
    expect(agent.toolSpecs[0]!.inputSchema).toMatchObject({ properties: { [STATED_REASON_FIELD]: { type: 'string' } }, required: ['line', STATED_REASON_FIELD] });
    expect((agent.toolSpecs[0]!.inputSchema as { properties: Record<string, { maxLength?: number }> }).properties[STATED_REASON_FIELD]!.maxLength).toBeUndefined();
    const stream = await agent.stream('approve it');
    const approval = (await collect(stream)).find((c) => c.type === 'tool-call-approval')!.payload as ApprovalRequest;
    expect(approval.args).toEqual(args);
    expect(approval.statedReason).toBeUndefined();
    expect(approval.fingerprint).toBe(fingerprint('approve_budget', args));
    await agent.approveToolCallGenerate({ runId: stream.runId });
    expect(executed).toEqual([args]);
  });

  it("a sub-agent's call carries its reason up to the supervisor's approval, and a delegation may state one too", async () => {
    const { tool, executed } = strictDelete();
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'agent-records', args: { prompt: 'delete abc', [STATED_REASON_FIELD]: 'records owns deletions' } }] },
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'abc', [STATED_REASON_FIELD]: 'asked by the supervisor' } }] },
      { text: 'records: done' },
      { text: 'Done.' },
    ]);
    const records = new Agent({ id: 'records', model, tools: { delete_record: tool } });
    const ops = new Agent({ id: 'ops', model, agents: { records }, storage: database, defaultOptions: { requireToolApproval: ({ toolName }) => toolName === 'agent-records' } });
    expect(ops.toolSpecs[0]!.inputSchema).toMatchObject({ properties: { prompt: { type: 'string' }, [STATED_REASON_FIELD]: { type: 'string' } } });

    const first = await ops.stream('delete abc', { requester: 'U0REQ' });
    const delegation = (await collect(first)).find((c) => c.type === 'tool-call-approval')!.payload as ApprovalRequest;
    expect(delegation).toMatchObject({ toolName: 'agent-records', args: { prompt: 'delete abc' }, statedReason: 'records owns deletions' });
    const second = await ops.approveToolCall({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    const inner = (await collect(second)).find((c) => c.type === 'tool-call-approval')!.payload as ApprovalRequest;
    expect(inner).toMatchObject({ toolName: 'delete_record', args: { id: 'abc' }, path: ['ops', 'records'], statedReason: 'asked by the supervisor' });
    const done = await ops.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    expect(done.text).toBe('Done.');
    expect(executed).toEqual([{ id: 'abc' }]);
  });

  it('an approver\'s edit keeps the model\'s stated reason on the request that replaces it', async () => {
    const { tool, executed } = strictDelete();
    const model = scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'abc', [STATED_REASON_FIELD]: 'duplicate of abd' } }] }, { text: 'ok' }]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    const first = await agent.generate('delete abc', { requester: 'U0REQ' });
    const actionId = (await agent.latestApprovalId(first.runId, first.suspendPayload!.toolCallId))!;
    const edited = await agent.editToolCall({ actionId, actor: { userId: 'U0ALICE' }, args: { id: 'abd' } });
    expect(edited.outcome).toBe('approved');
    if (edited.outcome !== 'approved') return;
    expect(edited.action.stated_reason).toBe('duplicate of abd');
    await edited.stream!.result;
    expect(executed).toEqual([{ id: 'abd' }]);
  });
});
