import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APICallError } from '@ai-sdk/provider';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { AgentError, ModelCallError, SnapshotNotFoundError } from '../../src/agent/errors.js';
import { collect, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { runRecordCount } from '../helpers/run-record-count.js';
import { modelThatFailsAfter } from '../helpers/scripted-model.js';

/** OpenAI's API on loopback answering every request with `status` and OpenAI's error body. */
async function failingOpenAI(status: number, message: string): Promise<{ baseURL: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: status === 401 ? 'invalid_api_key' : null } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const providersFor = (apiKey: string, baseURL: string) => ({ openai: { apiKey, baseURL }, anthropic: {}, openaiCompatible: {} });

describeBackends('a model that fails on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('a 401 on the first step rejects generate with a ModelCallError naming the model, once, leaving nothing behind', async () => {
    const openai = await failingOpenAI(401, 'Incorrect API key provided: sk-te****1234.');
    try {
      const agent = new Agent({ id: 'ops', model: 'openai/gpt-test', providers: providersFor('sk-test-1234', openai.baseURL), storage: database, recordRunAfterMs: 0 });
      const error = await agent.generate('hello', { runId: 'run-401' }).then(
        () => expect.unreachable('generate resolved'),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ModelCallError);
      expect(error).toBeInstanceOf(AgentError);
      expect(error).toMatchObject({
        code: 'MODEL_CALL_FAILED',
        statusCode: 401,
        message: 'model openai.responses/gpt-test failed: Incorrect API key provided: sk-te****1234. (HTTP 401)',
        details: { runId: 'run-401', agentId: 'ops', model: 'openai.responses/gpt-test', step: 1, attempts: 1 },
      });
      expect(APICallError.isInstance((error as Error).cause)).toBe(true);
      // Not retried: a refused key stays refused.
      expect(openai.requests()).toBe(1);
      expect(await runRecordCount(database, 'run-401')).toBe(0);
      // What a caller that went on anyway hears: the run is gone, but it was told why first.
      await expect(agent.approveToolCall({ runId: 'run-401' })).rejects.toBeInstanceOf(SnapshotNotFoundError);
    } finally {
      await openai.close();
    }
  });

  it('stream reports the same error as its error chunk and result, and finishes with "error"', async () => {
    const openai = await failingOpenAI(400, "Invalid value for 'temperature': must be at most 2.");
    try {
      const agent = new Agent({ id: 'ops', model: 'openai/gpt-test', providers: providersFor('sk-test', openai.baseURL), storage: database });
      const stream = await agent.stream('hello', { modelSettings: { temperature: 5 } });
      const chunks = await collect(stream);
      const error = chunks.find((c) => c.type === 'error')?.payload.error;
      expect(error).toBeInstanceOf(ModelCallError);
      expect((error as Error).message).toBe("model openai.responses/gpt-test failed: Invalid value for 'temperature': must be at most 2. (HTTP 400)");
      expect(chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'error' } });
      expect((await stream.result).error).toBe(error);
    } finally {
      await openai.close();
    }
  });

  it('a provider that cannot be reached is retried, then named in the error', async () => {
    const openai = await failingOpenAI(500, 'unused');
    const { baseURL } = openai;
    await openai.close();
    const agent = new Agent({
      id: 'ops',
      model: 'openai/gpt-test',
      providers: providersFor('sk-test', baseURL),
      storage: database,
      defaultOptions: { modelSettings: { maxRetries: 1 } },
    });
    await expect(agent.generate('hello')).rejects.toMatchObject({
      code: 'MODEL_CALL_FAILED',
      message: expect.stringMatching(/^model openai\.responses\/gpt-test failed: /),
      details: { attempts: 2 },
    });
  });

  it('a failure after the first step resolves generate with the error and what ran before it', async () => {
    const { tool, calls } = countingTool('lookup_record');
    const model = modelThatFailsAfter([{ toolCalls: [{ toolName: 'lookup_record', args: { id: 'r1' } }] }]);
    const agent = new Agent({ id: 'ops', model, tools: { lookup_record: tool }, storage: database });
    const result = await agent.generate('look up r1');
    expect(result.finishReason).toBe('error');
    expect(result.error).toBeInstanceOf(ModelCallError);
    expect(result.error).toMatchObject({ details: { step: 2 }, message: 'model mock-provider/mock-model-id failed: the provider is down' });
    expect(result.toolResults).toEqual([expect.objectContaining({ toolName: 'lookup_record', isError: false })]);
    expect(calls).toEqual([{ id: 'r1' }]);
    expect(await runRecordCount(database, result.runId)).toBe(0);
  });
});
