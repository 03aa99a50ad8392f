import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel, lastToolResults } from '../helpers/scripted-model.js';
import { agentWith, collect, countingTool } from '../helpers/agents.js';
import { ToolCallNotPendingError } from '../../src/agent/errors.js';

describeBackends('runtime approvals on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('pauses a requireApproval tool, runs it once on approve, and the text continues', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      { text: 'Deleting.', toolCalls: [{ toolName: 'delete_record', args: { id: 'abc' } }] },
      { text: 'Deleted abc.' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    const stream = await agent.stream('delete abc');
    const chunks = await collect(stream);
    const approval = chunks.find((c) => c.type === 'tool-call-approval');
    expect(approval?.payload).toMatchObject({ toolName: 'delete_record', args: { id: 'abc' } });
    expect(await stream.finishReason).toBe('suspended');
    expect(calls).toHaveLength(0);

    const resumed = await agent.approveToolCall({ runId: stream.runId });
    // The whole answer, before and after the pause, run together as the model wrote it (Mastra's).
    expect(await resumed.text).toBe('Deleting.Deleted abc.');
    expect(await resumed.finishReason).toBe('stop');
    expect(calls).toEqual([{ id: 'abc' }]);
    expect(lastToolResults(model)[0]).toMatchObject({ type: 'tool-result', output: { type: 'json', value: { done: 'abc' } } });

    await expect(agent.approveToolCall({ runId: stream.runId })).rejects.toThrow(/snapshot not found/);
  });

  it('declining never runs the tool and the model sees a denied result with the reason', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'abc' } }] },
      { text: 'OK, I will not delete it.' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    const stream = await agent.stream('delete abc');
    const suspend = await stream.suspendPayload;
    const declined = await agent.declineToolCall({ runId: stream.runId, toolCallId: suspend!.toolCallId, reason: 'wrong record' });
    expect(await declined.text).toBe('OK, I will not delete it.');
    expect(calls).toHaveLength(0);
    expect(lastToolResults(model)).toEqual([
      expect.objectContaining({
        toolCallId: suspend!.toolCallId,
        output: { type: 'execution-denied', reason: 'Tool call declined by api; delete_record did not run. Their reason, in their own words: "wrong record".' },
      }),
    ]);
  });

  it('generate() reports suspension and the Generate variants return final results', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'x1' } }] },
      { text: 'done' },
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'x2' } }] },
      { text: 'not done' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    const first = await agent.generate('delete x1');
    expect(first.finishReason).toBe('suspended');
    expect(first.suspendPayload).toMatchObject({ toolName: 'delete_record', args: { id: 'x1' } });
    expect(first.runId).toBeTruthy();
    const approved = await agent.approveToolCallGenerate({ runId: first.runId });
    expect(approved).toMatchObject({ finishReason: 'stop', text: 'done' });

    const second = await agent.generate('delete x2');
    const declined = await agent.declineToolCallGenerate({ runId: second.runId });
    expect(declined).toMatchObject({ finishReason: 'stop', text: 'not done' });
    expect(calls).toEqual([{ id: 'x1' }]);
  });

  it('requireToolApproval: true pauses every call; the function form only what it selects', async () => {
    const { tool: lookup, calls: lookups } = countingTool('lookup');
    const { tool: remove, calls: removes } = countingTool('remove');
    const model = () =>
      scriptedModel([{ toolCalls: [{ toolName: 'lookup', args: { id: '1' } }, { toolName: 'remove', args: { id: '2' } }] }, { text: 'ok' }]);

    const all = agentWith({ model: model(), tools: { lookup, remove }, storage: database });
    const r1 = await all.generate('go', { requireToolApproval: true });
    expect(r1.pending.map((p) => p.toolName)).toEqual(['lookup', 'remove']);
    expect(lookups).toHaveLength(0);

    const some = agentWith({ model: model(), tools: { lookup, remove }, storage: database });
    const r2 = await some.generate('go', { requireToolApproval: ({ toolName }) => toolName === 'remove' });
    expect(r2.pending.map((p) => p.toolName)).toEqual(['remove']);
    expect(lookups).toHaveLength(1);
    expect(removes).toHaveLength(0);

    const throwing = agentWith({ model: model(), tools: { lookup, remove }, storage: database });
    const r3 = await throwing.generate('go', {
      requireToolApproval: () => {
        throw new Error('policy service down');
      },
    });
    expect(r3.pending.map((p) => p.toolName)).toEqual(['lookup', 'remove']);
  });

  it("a tool's own requireApproval function decides over the request's rule; its false does not (Mastra's precedence)", async () => {
    const { tool: safe, calls: safeCalls } = countingTool('safe', { requireApproval: false });
    const { tool: risky } = countingTool('risky', { requireApproval: true });
    const { tool: judged, calls: judgedCalls } = countingTool('judged', { requireApproval: (input) => input.id === 'big' });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'safe', args: { id: '1' } },
          { toolName: 'risky', args: { id: '2' } },
          { toolName: 'judged', args: { id: 'small' } },
          { toolName: 'judged', args: { id: 'big' } },
        ],
      },
      { text: 'ok' },
    ]);
    const agent = agentWith({ model, tools: { safe, risky, judged }, storage: database });
    const result = await agent.generate('go', { requireToolApproval: ({ toolName }) => toolName !== 'risky' });
    expect(result.pending.map((p) => [p.toolName, p.args])).toEqual([
      ['safe', { id: '1' }],
      ['risky', { id: '2' }],
      ['judged', { id: 'big' }],
    ]);
    expect(safeCalls).toHaveLength(0);
    expect(judgedCalls).toEqual([{ id: 'small' }]);
  });

  it('two pending calls in one step: each decided by id in any order; the run continues after both', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'delete_record', args: { id: 'a' }, toolCallId: 'c-a' },
          { toolName: 'delete_record', args: { id: 'b' }, toolCallId: 'c-b' },
        ],
      },
      { text: 'both handled' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    const first = await agent.generate('delete a and b');
    expect(first.pending.map((p) => p.toolCallId)).toEqual(['c-a', 'c-b']);

    const afterB = await agent.approveToolCallGenerate({ runId: first.runId, toolCallId: 'c-b' });
    expect(afterB.finishReason).toBe('suspended');
    expect(afterB.pending.map((p) => p.toolCallId)).toEqual(['c-a']);
    expect(calls).toHaveLength(0);
    expect(model.doStreamCalls).toHaveLength(1);

    const afterA = await agent.declineToolCallGenerate({ runId: first.runId, toolCallId: 'c-a' });
    expect(afterA).toMatchObject({ finishReason: 'stop', text: 'both handled' });
    expect(calls).toEqual([{ id: 'b' }]);
    const results = lastToolResults(model);
    expect(results.map((r) => (r as { toolCallId: string }).toolCallId)).toEqual(['c-a', 'c-b']);
    expect((results[0] as { output: { type: string } }).output.type).toBe('execution-denied');
  });

  it('without toolCallId the most recent pending call is decided', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'delete_record', args: { id: 'a' }, toolCallId: 'm-a' },
          { toolName: 'delete_record', args: { id: 'b' }, toolCallId: 'm-b' },
        ],
      },
      { text: 'done' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    const first = await agent.generate('go');
    const r1 = await agent.approveToolCallGenerate({ runId: first.runId });
    expect(r1.pending.map((p) => p.toolCallId)).toEqual(['m-a']);
    expect(calls).toHaveLength(0);
    const r2 = await agent.approveToolCallGenerate({ runId: first.runId });
    expect(r2.text).toBe('done');
    expect(calls).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  it('deciding a call that is not pending throws a typed error naming run and call', async () => {
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'a' }, toolCallId: 'n-a' }] },
      { text: 'done' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    const first = await agent.generate('go');
    const error = await agent.approveToolCall({ runId: first.runId, toolCallId: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolCallNotPendingError);
    expect((error as ToolCallNotPendingError).details).toMatchObject({ runId: first.runId, toolCallId: 'nope' });
    const { runs } = await agent.listSuspendedRuns();
    expect(runs.find((r) => r.runId === first.runId)?.toolCalls).toHaveLength(1);
  });

  it('invalid model input becomes a tool error and the run goes on; a throwing tool too', async () => {
    const { tool, calls } = countingTool('lookup');
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'lookup', args: { wrong: 1 } }, { toolName: 'missing_tool', args: {} }] },
      { text: 'recovered' },
    ]);
    const agent = agentWith({ model, tools: { lookup: tool }, storage: database });
    const result = await agent.generate('go');
    expect(result.text).toBe('recovered');
    expect(calls).toHaveLength(0);
    const results = lastToolResults(model) as Array<{ output: { type: string; value: string } }>;
    expect(results[0]!.output.type).toBe('error-text');
    expect(results[0]!.output.value).toMatch(/Invalid input for tool lookup/);
    expect(results[1]!.output.value).toMatch(/Tool missing_tool not found/);
  });
});

describe('text across steps', () => {
  it("is every step's text run together, as the text-deltas and the steps have it (Mastra's)", async () => {
    const database = await createTestDatabase('pglite');
    try {
      const { tool } = countingTool('lookup');
      const model = scriptedModel([{ text: 'Let me check.', toolCalls: [{ toolName: 'lookup', args: { id: '1' } }] }, { text: 'It exists.' }]);
      const stream = await agentWith({ model, tools: { lookup: tool }, storage: database }).stream('check 1');
      let deltas = '';
      for await (const chunk of stream.fullStream) if (chunk.type === 'text-delta') deltas += chunk.payload.text;
      expect(await stream.text).toBe('Let me check.It exists.');
      expect(deltas).toBe(await stream.text);
      expect((await stream.steps).map((s) => s.text)).toEqual(['Let me check.', 'It exists.']);
    } finally {
      await database.close();
    }
  });

  it('the answer kept for a front end has each step of the continuation as its own paragraph', async () => {
    const database = await createTestDatabase('pglite');
    try {
      const { tool: lookup } = countingTool('lookup');
      const { tool: remove } = countingTool('delete_record', { requireApproval: true });
      const model = scriptedModel([
        { text: 'Deleting.', toolCalls: [{ toolName: 'delete_record', args: { id: '1' } }] },
        { text: 'Deleted. Checking.', toolCalls: [{ toolName: 'lookup', args: { id: '1' } }] },
        { text: 'It is gone.' },
      ]);
      const agent = agentWith({ model, tools: { lookup, delete_record: remove }, storage: database });
      agent.keepResults();
      const first = await agent.generate('delete 1');
      const done = await agent.approveToolCallGenerate({ runId: first.runId });
      expect(done.text).toBe('Deleting.Deleted. Checking.It is gone.');
      const kept = await database.db.selectFrom('run_results').select('text').where('run_id', '=', first.runId).executeTakeFirstOrThrow();
      // What a front end posts for the continuation, as the Slack front end shows a stream.
      expect(kept.text).toBe('Deleted. Checking.\n\nIt is gone.');
    } finally {
      await database.close();
    }
  });
});
