import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { createLogger } from '../../src/logger.js';
import { createTool } from '../../src/agent/tool.js';
import { AmbiguousToolCallError } from '../../src/agent/errors.js';

describeBackends('memory, sendToolApproval and logging on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('thread memory is in Postgres: a new agent object sees the earlier exchange, other threads do not', async () => {
    const first = agentWith({ model: scriptedModel([{ text: 'Noted: the code is 7.' }]), storage: database, memory: true });
    await first.generate('remember the code 7', { threadId: 'mem-1', resourceId: 'T1' });
    const model = scriptedModel([{ text: 'It was 7.' }]);
    const later = agentWith({ model, storage: database, memory: true });
    await later.generate('what was the code?', { threadId: 'mem-1', resourceId: 'T1' });
    const seen = JSON.stringify(model.doStreamCalls[0]!.prompt);
    expect(seen).toContain('remember the code 7');
    expect(seen).toContain('Noted: the code is 7.');
    const isolated = scriptedModel([{ text: '?' }]);
    await agentWith({ model: isolated, storage: database, memory: true }).generate('hi', { threadId: 'mem-2', resourceId: 'T1' });
    expect(JSON.stringify(isolated.doStreamCalls[0]!.prompt)).not.toContain('code 7');
  });

  it('a resumed run still sees the thread history it started with, and memory keeps the whole run', async () => {
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([{ text: 'hello' }, { toolCalls: [{ toolName: 'delete_record', args: { id: 'a' } }] }, { text: 'deleted a' }, { text: 'next' }]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, memory: true });
    const thread = { threadId: 'mem-3', resourceId: 'T1' };
    await agent.generate('hi there', thread);
    const paused = await agent.generate('delete a', thread);
    await agent.approveToolCallGenerate({ runId: paused.runId });
    expect(JSON.stringify(model.doStreamCalls[2]!.prompt)).toContain('hi there');
    await agent.generate('and now?', thread);
    const last = JSON.stringify(model.doStreamCalls[3]!.prompt);
    expect(last).toContain('delete a');
    expect(last).toContain('deleted a');
    expect(last).toContain('tool-result');
  });

  it('sendToolApproval finds the run by thread; several pending without a toolCallId is an error', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'x' }, toolCallId: 's-x' }, { toolName: 'delete_record', args: { id: 'y' }, toolCallId: 's-y' }] },
      { text: 'done' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    await agent.generate('delete x and y', { threadId: 'send-1', resourceId: 'T1' });
    await expect(agent.sendToolApproval({ threadId: 'send-1', approved: true })).rejects.toBeInstanceOf(AmbiguousToolCallError);
    expect(calls).toHaveLength(0);
    await (await agent.sendToolApproval({ threadId: 'send-1', toolCallId: 's-x', approved: true })).result;
    const done = await (await agent.sendToolApproval({ threadId: 'send-1', approved: false, reason: 'no' })).result;
    expect(done.text).toBe('done');
    expect(calls).toEqual([{ id: 'x' }]);
  });

  it('a tool that throws is logged with the run and call ids', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const boom = createTool({ id: 'boom', description: 'fails', inputSchema: z.object({}), execute: async () => { throw new Error('kaput'); } });
    const agent = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'boom', args: {}, toolCallId: 'log-1' }] }, { text: 'ok' }]), tools: { boom }, storage: database, logger });
    const result = await agent.generate('go');
    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'tool failed');
    expect(entry).toMatchObject({ runId: result.runId, toolCallId: 'log-1', tool: 'boom', err: { message: 'kaput' } });
  });
});
