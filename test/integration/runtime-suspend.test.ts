import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { scriptedModel, lastToolResults } from '../helpers/scripted-model.js';
import { agentWith, collect, countingTool } from '../helpers/agents.js';
import { createTool } from '../../src/agent/tool.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import { Agent } from '../../src/agent/agent.js';
import { ResumeValidationError, SnapshotNotFoundError } from '../../src/agent/errors.js';
import { storedActionOf } from '../../src/agent/stream.js';
import { findAction } from '../../src/db/pending-actions.js';

function deployTool() {
  const log: string[] = [];
  const tool = createTool({
    id: 'deploy',
    description: 'deploy',
    inputSchema: z.object({ env: z.string() }),
    suspendSchema: z.object({ message: z.string() }),
    resumeSchema: z.object({ confirmed: z.boolean() }),
    execute: async (input: { env: string }, ctx) => {
      const resume = ctx.agent?.resumeData as { confirmed: boolean } | undefined;
      if (!resume) {
        await ctx.agent!.suspend({ message: `Deploy to ${input.env}?` });
        log.push('after-suspend');
        return 'ignored while suspended';
      }
      log.push(`resumed:${resume.confirmed}`);
      return resume.confirmed ? `deployed to ${input.env}` : 'cancelled';
    },
  });
  return { tool, log };
}

describeBackends('suspension, ask_user and supervisors on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('hands the front end each announced call as stored, equal to reading it back', async () => {
    const { tool } = deployTool();
    const { tool: remove } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'deploy', args: { env: 'prod' } }, { toolName: 'delete_record', args: { id: 'abc-123' } }] },
      { text: 'Done.' },
    ]);
    const agent = agentWith({ model, tools: { deploy: tool, delete_record: remove }, storage: database });
    const chunks = await collect(await agent.stream('deploy prod and delete abc-123', { requester: 'U0REQ' } as never));
    // One call per stream, as Mastra announces them; the front end gets every request of the pause from the chunk.
    const announced = chunks.filter((c) => c.type === 'tool-call-approval' || c.type === 'tool-call-suspended');
    expect(announced.map((c) => c.type)).toEqual(['tool-call-suspended']);
    const pause = agent.requestsOfPause(announced[0]!.payload as never)!;
    expect(pause.map((r) => r.kind)).toEqual(['suspension', 'approval']);
    expect(pause[0]!.payload).toBe(announced[0]!.payload);
    for (const request of pause) {
      const payload = request.payload as { actionId: number };
      const stored = storedActionOf(payload);
      expect(stored?.id).toBe(payload.actionId);
      // What a card is drawn from must not depend on whether it was read back: same values, same key order.
      const read = await findAction(database.db, payload.actionId);
      expect(JSON.stringify(stored)).toBe(JSON.stringify(read));
    }
    // The chunk's payload stays the public shape: the row is not on it.
    expect(JSON.stringify(announced[0]!.payload)).not.toContain('policy_version');
  });

  it('suspend() emits tool-call-suspended; resumeStream validates and re-runs the tool; code after suspend runs', async () => {
    const { tool, log } = deployTool();
    const model = scriptedModel([{ toolCalls: [{ toolName: 'deploy', args: { env: 'prod' } }] }, { text: 'Deployed.' }]);
    const agent = agentWith({ model, tools: { deploy: tool }, storage: database });
    const stream = await agent.stream('deploy prod');
    const chunks = await collect(stream);
    const suspended = chunks.find((c) => c.type === 'tool-call-suspended');
    expect(suspended?.payload).toMatchObject({ toolName: 'deploy', suspendPayload: { message: 'Deploy to prod?' } });
    expect(log).toEqual(['after-suspend']);

    await expect(agent.resumeStream({ confirmed: 'yes' }, { runId: stream.runId })).rejects.toBeInstanceOf(ResumeValidationError);
    const { runs } = await agent.listSuspendedRuns();
    expect(runs.some((r) => r.runId === stream.runId)).toBe(true);

    const resumed = await agent.resumeStream({ confirmed: true }, { runId: stream.runId });
    expect(await resumed.text).toBe('Deployed.');
    expect(log).toEqual(['after-suspend', 'resumed:true']);
    expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'text', value: 'deployed to prod' } });
  });

  it('autoResumeSuspendedTools: the next message on the thread resumes with extracted data, never approves', async () => {
    const { tool, log } = deployTool();
    const { tool: remove, calls } = countingTool('remove', { requireApproval: true });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'deploy', args: { env: 'prod' } }] },
      { text: 'Deployed after confirmation.' },
      { toolCalls: [{ toolName: 'remove', args: { id: 'r1' } }] },
      { text: 'unused' },
    ]);
    const agent = agentWith({
      model,
      tools: { deploy: tool, remove },
      storage: database,
      memory: true,
      defaultOptions: { autoResumeSuspendedTools: true },
    });
    const thread = { threadId: 'thread-auto', resourceId: 'team-1' };
    const first = await agent.generate('deploy prod', thread);
    expect(first.finishReason).toBe('suspended');
    const second = await agent.generate('yes', thread);
    expect(second.text).toBe('Deployed after confirmation.');
    expect(log).toEqual(['after-suspend', 'resumed:true']);

    const third = await agent.generate('remove r1', thread);
    expect(third.finishReason).toBe('suspended');
    const fourth = await agent.generate('yes, approve it', { ...thread, autoResumeSuspendedTools: true });
    // A message is never an approval: the call is still pending and did not run.
    expect(calls).toHaveLength(0);
    const { runs } = await agent.listSuspendedRuns(thread);
    expect(runs.flatMap((r) => r.toolCalls).some((c) => c.toolName === 'remove' && c.requiresApproval)).toBe(true);
    expect(fourth.runId).not.toBe(third.runId);
  });

  it('autoResumeSuspendedTools: a reply that loses the race to another answer is not used and starts no run of its own', async () => {
    const { tool, log } = deployTool();
    const isExtraction = (call: LanguageModelV3CallOptions) => call.prompt[0]?.role === 'system' && String(call.prompt[0].content).startsWith('Extract the answer');
    let agent!: Agent;
    let runId = '';
    let other: Promise<string> | undefined;
    const inner = scriptedModel([
      { toolCalls: [{ toolName: 'deploy', args: { env: 'prod' } }] },
      (call) => (isExtraction(call) ? { text: '{"confirmed": true}' } : call.prompt.at(-1)?.role === 'tool' ? { text: 'Deployed.' } : { text: 'a fresh run answered this' }),
    ]);
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        // While the model reads the reply, the same question is answered through the form.
        if (isExtraction(options) && !other) other = agent.resumeStream({ confirmed: true }, { runId }).then((s) => s.text);
        if (isExtraction(options)) await other;
        return inner.doStream(options);
      },
    });
    agent = agentWith({ model, tools: { deploy: tool }, storage: database, defaultOptions: { autoResumeSuspendedTools: true } });
    const thread = { threadId: 'thread-race', resourceId: 'team-1' };
    runId = (await agent.generate('deploy prod', thread)).runId;
    const reply = await agent.generate('definitely', thread);
    expect(reply.text).toBe('deploy was answered a moment ago, so this reply was not used.');
    expect(await other).toBe('Deployed.');
    expect(log).toEqual(['after-suspend', 'resumed:true']);
    // The first step, the extraction and the continuation: no fresh run was asked about "definitely".
    expect(inner.doStreamCalls).toHaveLength(3);
  });

  it('askUserTool: free text, single and multi select, input errors, fallback outside a run', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'ask_user', args: { question: 'Which env?', options: [{ label: 'staging' }, { label: 'production', description: 'live' }] } }] },
      { text: 'single done' },
      { toolCalls: [{ toolName: 'ask_user', args: { question: 'Which regions?', options: [{ label: 'eu' }, { label: 'us' }], selectionMode: 'multi_select' } }] },
      { text: 'multi done' },
      { toolCalls: [{ toolName: 'ask_user', args: { question: 'Why?' } }] },
      { text: 'free done' },
      { toolCalls: [{ toolName: 'ask_user', args: { question: '', selectionMode: 'multi_select' } }] },
      { text: 'error handled' },
    ]);
    const agent = agentWith({ model, tools: { ask_user: askUserTool }, storage: database });

    const single = await agent.generate('ask');
    expect(single.suspendPayload).toMatchObject({
      toolName: 'ask_user',
      suspendPayload: { question: 'Which env?', selectionMode: 'single_select', options: [{ label: 'staging' }, { label: 'production', description: 'live' }] },
    });
    await expect(agent.resumeStream('mars', { runId: single.runId })).rejects.toBeInstanceOf(ResumeValidationError);
    await expect(agent.resumeStream(['staging'], { runId: single.runId })).rejects.toBeInstanceOf(ResumeValidationError);
    expect((await agent.resumeGenerate('production', { runId: single.runId })).text).toBe('single done');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'json', value: { content: 'User answered: production', isError: false } } });

    const multi = await agent.generate('ask');
    expect(multi.suspendPayload?.suspendPayload).toMatchObject({ selectionMode: 'multi_select' });
    await expect(agent.resumeStream('eu', { runId: multi.runId })).rejects.toBeInstanceOf(ResumeValidationError);
    expect((await agent.resumeGenerate(['eu', 'us'], { runId: multi.runId })).text).toBe('multi done');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'json', value: { content: 'User answered: eu, us', isError: false } } });

    const free = await agent.generate('ask');
    expect(free.suspendPayload?.suspendPayload).toEqual({ question: 'Why?' });
    expect((await agent.resumeGenerate('because', { runId: free.runId })).text).toBe('free done');

    const bad = await agent.generate('ask');
    expect(bad.text).toBe('error handled');
    const errors = lastToolResults(model) as Array<{ output: { type: string; value: string } }>;
    expect(errors[0]!.output.type).toBe('error-text');
    expect(errors[0]!.output.value).toMatch(/question/);

    const outside = await askUserTool.execute(
      { question: 'Pick one', options: [{ label: 'a', description: 'first' }, { label: 'b' }] },
      { requestContext: new Map() },
    );
    expect(outside).toEqual({ content: '[Question for user]: Pick one\nOptions: a, b\nSelection mode: single_select', isError: false });
  });

  it('askUserTool holds code callers to the bounds: a free-text answer over 3,000 characters, a repeated option or more options than asked are refused, never cut', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'ask_user', args: { question: 'Which regions?', options: [{ label: 'eu' }, { label: 'us' }], selectionMode: 'multi_select' } }] },
      { text: 'multi done' },
      { toolCalls: [{ toolName: 'ask_user', args: { question: 'Why?' } }] },
      { text: 'free done' },
    ]);
    const agent = agentWith({ model, tools: { ask_user: askUserTool }, storage: database });

    const multi = await agent.generate('ask');
    for (const answer of [['eu', 'eu'], Array.from({ length: 10_000 }, () => 'us'), ['eu', 'us', 'eu']]) {
      const refused = await agent.resumeStream(answer, { runId: multi.runId }).then(() => undefined, (error: unknown) => error);
      expect(refused).toBeInstanceOf(ResumeValidationError);
      expect((refused as ResumeValidationError).issues.join(' ')).toMatch(/at most once|at most 2 options/);
    }
    expect((await agent.resumeGenerate(['us', 'eu'], { runId: multi.runId })).text).toBe('multi done');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { content: 'User answered: us, eu', isError: false } } });

    const free = await agent.generate('ask');
    const long = await agent.resumeStream('w'.repeat(3001), { runId: free.runId }).then(() => undefined, (error: unknown) => error);
    expect(long).toBeInstanceOf(ResumeValidationError);
    expect((long as ResumeValidationError).issues).toEqual(['(value): answer must be at most 3000 characters']);
    const exactly = `${'w'.repeat(2999)}!`;
    expect((await agent.resumeGenerate(exactly, { runId: free.runId })).text).toBe('free done');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: { content: `User answered: ${exactly}`, isError: false } } });
  });

  it('supervisor → sub-agent → sub-agent: approval surfaces at the top with the inner tool and path', async () => {
    const { tool: refund, calls } = countingTool('refund', { requireApproval: true });
    const leafModel = () => scriptedModel([{ toolCalls: [{ toolName: 'refund', args: { id: 'o-1' } }] }, { text: 'leaf: refunded' }]);
    const middleModel = () => scriptedModel([{ toolCalls: [{ toolName: 'agent-leaf', args: { prompt: 'refund o-1' } }] }, { text: 'middle: done' }]);
    const topModel = () => scriptedModel([{ toolCalls: [{ toolName: 'agent-middle', args: { prompt: 'handle refund' } }] }, { text: 'top: all done' }]);
    const build = () => {
      const leaf = new Agent({ id: 'leaf', model: leafModel(), tools: { refund } });
      const middle = new Agent({ id: 'middle', model: middleModel(), agents: { leaf } });
      const top = new Agent({ id: 'top', model: topModel(), agents: { middle }, storage: database });
      return top;
    };

    const top = build();
    const stream = await top.stream('refund please');
    const chunks = await collect(stream);
    const approval = chunks.find((c) => c.type === 'tool-call-approval');
    expect(approval?.payload).toMatchObject({ toolName: 'refund', args: { id: 'o-1' }, path: ['top', 'middle', 'leaf'] });
    const { runs } = await top.listSuspendedRuns();
    const listed = runs.find((r) => r.runId === stream.runId);
    expect(listed?.toolCalls).toEqual([expect.objectContaining({ toolName: 'refund', requiresApproval: true, path: ['top', 'middle', 'leaf'] })]);

    const resumed = await top.approveToolCall({ runId: stream.runId });
    expect(await resumed.text).toBe('top: all done');
    expect(calls).toHaveLength(1);
    expect((await top.listSuspendedRuns()).runs.find((r) => r.runId === stream.runId)).toBeUndefined();

    const top2 = build();
    const generated = await top2.generate('refund please');
    // generate() reports it as Mastra's does: the top-level delegation, carrying the inner call.
    expect(generated.suspendPayload).toMatchObject({
      toolName: 'agent-middle',
      args: { prompt: 'handle refund' },
      suspendPayload: { toolName: 'refund', args: { id: 'o-1' } },
      innerToolName: 'refund',
      path: ['top', 'middle', 'leaf'],
    });
    const declined = await top2.declineToolCallGenerate({ runId: generated.runId, reason: 'no refunds today' });
    expect(declined.text).toBe('top: all done');
    expect(calls).toHaveLength(1);
  });

  it('a suspend() tool inside a sub-agent surfaces at the top and resumes through the tree', async () => {
    const { tool, log } = deployTool();
    const inner = new Agent({ id: 'deployer', model: scriptedModel([{ toolCalls: [{ toolName: 'deploy', args: { env: 'prod' } }] }, { text: 'inner ok' }]), tools: { deploy: tool } });
    const top = new Agent({
      id: 'boss',
      model: scriptedModel([{ toolCalls: [{ toolName: 'agent-deployer', args: { prompt: 'deploy' } }] }, { text: 'boss ok' }]),
      agents: { deployer: inner },
      storage: database,
    });
    const first = await top.generate('ship it');
    // As Mastra's generate() shows it: the delegation, carrying the inner call and its suspendPayload (the inner call beside it too).
    expect(first.suspendPayload).toMatchObject({
      kind: 'suspension',
      toolName: 'agent-deployer',
      args: { prompt: 'deploy' },
      innerToolName: 'deploy',
      innerArgs: { env: 'prod' },
      path: ['boss', 'deployer'],
      suspendPayload: { toolName: 'deploy', args: { env: 'prod' }, suspendPayload: { message: 'Deploy to prod?' } },
    });
    const done = await top.resumeGenerate({ confirmed: true }, { runId: first.runId });
    expect(done.text).toBe('boss ok');
    expect(log).toEqual(['after-suspend', 'resumed:true']);
  });

  it('resuming an unknown or finished run fails with snapshot not found', async () => {
    const { tool } = countingTool('x', { requireApproval: true });
    const agent = agentWith({ model: scriptedModel([{ text: 'hi' }]), tools: { x: tool }, storage: database });
    await expect(agent.approveToolCall({ runId: 'no-such-run' })).rejects.toBeInstanceOf(SnapshotNotFoundError);
    await expect(agent.resumeStream({}, { runId: 'no-such-run' })).rejects.toThrow(/snapshot not found/);
    const done = await agent.generate('hello');
    expect(done.finishReason).toBe('stop');
    await expect(agent.approveToolCall({ runId: done.runId })).rejects.toThrow(/snapshot not found/);
  });
});
