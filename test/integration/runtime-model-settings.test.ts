import { APICallError } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { ModelCallError, ModelSettingsError } from '../../src/agent/errors.js';
import { countingTool } from '../helpers/agents.js';
import { confirmTool } from '../helpers/confirm-tool.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';

/** A scripted model whose first `failures` calls fail with `error` (a provider answering 429 or 500, say). */
function modelFailingFirst(failures: number, error: () => unknown, steps: ScriptStep[]) {
  const inner = scriptedModel(steps);
  let calls = 0;
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      calls += 1;
      if (calls <= failures) throw error();
      return inner.doStream(options);
    },
  });
  return Object.assign(model, { calls: () => calls });
}

const apiError = (statusCode: number, headers: Record<string, string> = {}) =>
  new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://127.0.0.1/v1/responses',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    isRetryable: statusCode === 429 || statusCode >= 500,
  });

describeBackends('model call settings on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('passes the agent\'s settings to the provider unchanged, and a call\'s over them field by field', async () => {
    // Every setting the provider takes, as the agent's defaults; the provider must see each one as is.
    const providerSettings = {
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      maxOutputTokens: 512,
      stopSequences: ['END'],
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.3,
      headers: { 'x-team': 'ops', 'x-trace': 'agent' },
    };
    const providerOptions = { openai: { reasoningEffort: 'low', store: false } };
    const model = scriptedModel([{ text: 'ok' }]);
    const agent = new Agent({
      id: 'ops',
      model,
      storage: database,
      defaultOptions: { modelSettings: { ...providerSettings, maxRetries: 1 }, providerOptions },
    });

    await agent.generate('hello');
    const first = model.doStreamCalls[0]!;
    expect(first).toMatchObject({ ...providerSettings, providerOptions });
    // maxRetries is the runtime's, not the provider's.
    expect(first).not.toHaveProperty('maxRetries');

    await agent.generate('hello again', {
      modelSettings: { temperature: 0, headers: { 'x-trace': 'call' } },
      providerOptions: { openai: { reasoningEffort: 'high' }, anthropic: { sendReasoning: false } },
    });
    expect(model.doStreamCalls[1]).toMatchObject({
      temperature: 0,
      topP: 0.9,
      maxOutputTokens: 512,
      headers: { 'x-team': 'ops', 'x-trace': 'call' },
      providerOptions: { openai: { reasoningEffort: 'high', store: false }, anthropic: { sendReasoning: false } },
    });
  });

  it('an agent without settings sends none', async () => {
    const model = scriptedModel([{ text: 'ok' }]);
    await new Agent({ id: 'ops', model, storage: database }).generate('hello');
    const sent = model.doStreamCalls[0]!;
    for (const key of ['temperature', 'topP', 'topK', 'maxOutputTokens', 'stopSequences', 'seed', 'headers', 'providerOptions', 'abortSignal']) {
      expect(sent, key).not.toHaveProperty(key);
    }
  });

  it('a call\'s settings hold for its run after an approval, all but its headers; resumeStream\'s over them', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'a1' } }] }, { text: 'deleted a1' }]);
    const agent = new Agent({
      id: 'ops',
      model,
      tools: { delete_record: tool },
      storage: database,
      defaultOptions: { modelSettings: { maxOutputTokens: 100, headers: { 'x-team': 'ops' } } },
    });
    const paused = await agent.generate('delete a1', {
      modelSettings: { temperature: 0.1, headers: { authorization: 'Bearer per-call-secret' } },
      providerOptions: { openai: { user: 'U1' } },
    });
    expect(paused.finishReason).toBe('suspended');
    expect(model.doStreamCalls[0]).toMatchObject({ temperature: 0.1, headers: { 'x-team': 'ops', authorization: 'Bearer per-call-secret' } });
    // What is stored holds no header (they carry credentials).
    const stored = JSON.stringify(await database.db.selectFrom('run_snapshots').select('snapshot').where('run_id', '=', paused.runId).executeTakeFirstOrThrow());
    expect(stored).toContain('"temperature":0.1');
    expect(stored).not.toContain('per-call-secret');

    const after = await agent.approveToolCallGenerate({ runId: paused.runId });
    expect(after.text).toBe('deleted a1');
    expect(calls).toEqual([{ id: 'a1' }]);
    const second = model.doStreamCalls[1]!;
    expect(second).toMatchObject({ temperature: 0.1, maxOutputTokens: 100, headers: { 'x-team': 'ops' }, providerOptions: { openai: { user: 'U1' } } });
    expect(second.headers).not.toHaveProperty('authorization');
  });

  it('resumeStream takes settings of its own for the continued run', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'confirm', args: {} }] }, { text: 'confirmed' }]);
    const agent = new Agent({ id: 'ops', model, tools: { confirm: confirmTool }, storage: database });
    const paused = await agent.generate('go', { modelSettings: { temperature: 0.5, seed: 1 } });
    expect(paused.finishReason).toBe('suspended');
    const resumed = await agent.resumeGenerate({ ok: true }, { runId: paused.runId }, { modelSettings: { temperature: 1, headers: { 'x-resumed': 'yes' } } });
    expect(resumed.text).toBe('confirmed');
    expect(model.doStreamCalls[1]).toMatchObject({ temperature: 1, seed: 1, headers: { 'x-resumed': 'yes' } });
  });

  it('a sub-agent\'s calls use its own agent\'s settings, not its supervisor\'s request\'s', async () => {
    const billingModel = scriptedModel([{ text: 'refunded' }]);
    const billing = new Agent({ id: 'billing', model: billingModel, defaultOptions: { modelSettings: { temperature: 0 } } });
    const topModel = scriptedModel([{ toolCalls: [{ toolName: 'agent-billing', args: { prompt: 'refund' } }] }, { text: 'done' }]);
    const top = new Agent({ id: 'ops', model: topModel, agents: { billing }, storage: database });
    expect((await top.generate('refund', { modelSettings: { temperature: 0.9 } })).text).toBe('done');
    expect(topModel.doStreamCalls.map((c) => c.temperature)).toEqual([0.9, 0.9]);
    expect(billingModel.doStreamCalls.map((c) => c.temperature)).toEqual([0]);
  });

  it('refuses bad settings where they are written, naming each field, before anything runs', async () => {
    const model = scriptedModel([{ text: 'never' }]);
    const build = (modelSettings: unknown, providerOptions?: unknown) =>
      new Agent({ id: 'ops', model, storage: database, defaultOptions: { modelSettings: modelSettings as never, providerOptions: providerOptions as never } });

    expect(() => build({ temperature: 'hot' })).toThrow(ModelSettingsError);
    expect(() => build({ temperature: 'hot' })).toThrow(/defaultOptions of agent ops: modelSettings\.temperature/);
    expect(() => build({ maxOutputTokens: 0.5, topP: 3 })).toThrow(/modelSettings\.topP: must be between 0 and 1; modelSettings\.maxOutputTokens: must be a whole number|modelSettings\.maxOutputTokens: must be a whole number; modelSettings\.topP/);
    expect(() => build({ temprature: 0.2 })).toThrow(/unknown setting temprature/);
    expect(() => build({ maxRetries: -1 })).toThrow(/modelSettings\.maxRetries: must be ≥ 0/);
    expect(() => build({ stopSequences: 'END' })).toThrow(/modelSettings\.stopSequences/);
    expect(() => build({ seed: Number.NaN })).toThrow(/modelSettings\.seed/);
    expect(() => build({}, { openai: 'low' })).toThrow(/providerOptions\.openai/);
    try {
      build({ temperature: -1 });
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'MODEL_SETTINGS_INVALID', issues: ['modelSettings.temperature: must be ≥ 0'] });
    }

    const agent = new Agent({ id: 'ops', model, storage: database });
    await expect(agent.stream('hi', { modelSettings: { headers: { 'x-n': 1 as never } } })).rejects.toThrow(/stream options: modelSettings\.headers\.x-n: must be strings/);
    await expect(agent.generate('hi', { abortSignal: 'stop' as never })).rejects.toThrow(/abortSignal: must be an AbortSignal/);
    await expect(agent.generate('hi', { telemetry: { isEnabled: true, tracer: {} as never } })).rejects.toThrow(/telemetry/);
    expect(model.doStreamCalls).toHaveLength(0);
    const runs = await database.db.selectFrom('run_snapshots').select('run_id').where('agent_id', '=', 'ops').execute();
    expect(runs).toEqual([]);
  });

  it('retries a retryable provider error maxRetries times, then fails with it; a 4xx is not retried', async () => {
    // Two 503s then an answer: the default (2 retries) gets there.
    const flaky = modelFailingFirst(2, () => apiError(503, { 'retry-after-ms': '5' }), [{ text: 'after two retries' }]);
    expect((await new Agent({ id: 'ops', model: flaky, storage: database }).generate('hi')).text).toBe('after two retries');
    expect(flaky.calls()).toBe(3);

    // With none allowed, the first 429 is the answer.
    const limited = modelFailingFirst(1, () => apiError(429, { 'retry-after-ms': '5' }), [{ text: 'never' }]);
    const noRetry = new Agent({ id: 'ops', model: limited, storage: database, defaultOptions: { modelSettings: { maxRetries: 0 } } });
    const failed = await noRetry.generate('hi').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ModelCallError);
    expect(failed).toMatchObject({ code: 'MODEL_CALL_FAILED', statusCode: 429, details: { attempts: 1 } });
    expect(limited.calls()).toBe(1);

    // A call may allow more than its agent does.
    const stormy = modelFailingFirst(3, () => apiError(500, { 'retry-after-ms': '5' }), [{ text: 'after three' }]);
    const agent = new Agent({ id: 'ops', model: stormy, storage: database, defaultOptions: { modelSettings: { maxRetries: 0 } } });
    expect((await agent.generate('hi', { modelSettings: { maxRetries: 3 } })).text).toBe('after three');
    expect(stormy.calls()).toBe(4);

    const refused = modelFailingFirst(5, () => apiError(400), [{ text: 'never' }]);
    await expect(new Agent({ id: 'ops', model: refused, storage: database }).generate('hi')).rejects.toMatchObject({ statusCode: 400 });
    expect(refused.calls()).toBe(1);
  });

  it('waits as the server asks (retry-after) before retrying', async () => {
    const model = modelFailingFirst(1, () => apiError(429, { 'retry-after-ms': '300' }), [{ text: 'later' }]);
    const started = Date.now();
    expect((await new Agent({ id: 'ops', model, storage: database }).generate('hi')).text).toBe('later');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});
