import { SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { createTool } from '../../src/agent/tool.js';
import { countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { modelThatFailsAfter, scriptedModel } from '../helpers/scripted-model.js';

describeBackends('OpenTelemetry spans on %s', (backend) => {
  let database: TestDatabase;
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test');
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await provider.shutdown();
    await database?.close();
  });
  beforeEach(() => exporter.reset());

  const spans = (name?: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => name === undefined || s.name === name);

  it('one span per model call and per tool call, with the run, agent, model, tool and token usage', async () => {
    const { tool } = countingTool('lookup_record');
    const model = scriptedModel([{ toolCalls: [{ toolName: 'lookup_record', args: { id: 'r1' }, toolCallId: 'call-r1' }] }, { text: 'r1 is active' }]);
    const agent = new Agent({
      id: 'ops',
      model,
      tools: { lookup_record: tool },
      storage: database,
      defaultOptions: { modelSettings: { temperature: 0.3 }, telemetry: { isEnabled: true, tracer, functionId: 'ops-desk', metadata: { team: 'ops' } } },
    });
    const result = await agent.generate('look up r1');
    expect(result.text).toBe('r1 is active');

    // What every span of the run carries, model call or tool call.
    const ofTheRun = { 'agent.id': 'ops', 'agent.run_id': result.runId, 'ai.telemetry.functionId': 'ops-desk' };
    const modelSpans = spans('ai.streamText.doStream');
    expect(modelSpans).toHaveLength(2);
    expect(modelSpans[0]!.attributes).toMatchObject({
      ...ofTheRun,
      'ai.model.id': 'mock-model-id',
      'ai.model.provider': 'mock-provider',
      'gen_ai.request.model': 'mock-model-id',
      'gen_ai.request.temperature': 0.3,
      'agent.step': 1,
      'ai.telemetry.metadata.team': 'ops',
      'ai.response.finishReason': 'tool-calls',
      'ai.usage.inputTokens': 1,
      'ai.usage.outputTokens': 1,
      'gen_ai.usage.input_tokens': 1,
      'gen_ai.usage.output_tokens': 1,
    });
    expect(modelSpans[1]!.attributes).toMatchObject({ 'agent.step': 2, 'ai.response.finishReason': 'stop' });

    const toolSpans = spans('ai.toolCall');
    expect(toolSpans).toHaveLength(1);
    expect(toolSpans[0]!.attributes).toMatchObject({ ...ofTheRun, 'ai.toolCall.name': 'lookup_record', 'ai.toolCall.id': 'call-r1' });
    expect(toolSpans[0]!.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('a failing tool and a failing model mark their spans as errors', async () => {
    const broken = createTool({
      id: 'broken',
      description: 'fails',
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error('disk full');
      },
    });
    const model = modelThatFailsAfter([{ toolCalls: [{ toolName: 'broken', args: {} }] }]);
    const agent = new Agent({ id: 'ops', model, tools: { broken }, storage: database });
    const result = await agent.generate('break it', { telemetry: { isEnabled: true, tracer } });
    expect(result.finishReason).toBe('error');

    const [toolSpan] = spans('ai.toolCall');
    expect(toolSpan!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'Tool broken failed: disk full' });
    const modelSpans = spans('ai.streamText.doStream');
    expect(modelSpans.map((s) => s.status.code)).toEqual([SpanStatusCode.UNSET, SpanStatusCode.ERROR]);
    expect(modelSpans[1]!.status.message).toBe('model mock-provider/mock-model-id failed: the provider is down');
    expect(modelSpans[1]!.events.map((e) => e.name)).toContain('exception');
  });

  it('a sub-agent\'s model calls are traced under its supervisor\'s request', async () => {
    const billing = new Agent({ id: 'billing', model: scriptedModel([{ text: 'refunded' }]) });
    const top = new Agent({
      id: 'ops',
      model: scriptedModel([{ toolCalls: [{ toolName: 'agent-billing', args: { prompt: 'refund' } }] }, { text: 'done' }]),
      agents: { billing },
      storage: database,
    });
    await top.generate('refund', { telemetry: { isEnabled: true, tracer } });
    expect(spans('ai.streamText.doStream').map((s) => s.attributes['agent.id'])).toEqual(['ops', 'billing', 'ops']);
  });

  it('makes no span, and calls no tracer, unless enabled', async () => {
    let started = 0;
    const counting: Tracer = {
      startSpan: (...args: Parameters<Tracer['startSpan']>) => {
        started += 1;
        return tracer.startSpan(...args);
      },
      startActiveSpan: ((...args: Parameters<Tracer['startActiveSpan']>) => {
        started += 1;
        return (tracer.startActiveSpan as (...a: unknown[]) => unknown)(...args);
      }) as Tracer['startActiveSpan'],
    };
    const { tool } = countingTool('lookup_record');
    const steps = [{ toolCalls: [{ toolName: 'lookup_record', args: { id: 'r2' } }] }, { text: 'ok' }];
    const off = new Agent({ id: 'ops', model: scriptedModel(steps), tools: { lookup_record: tool }, storage: database, defaultOptions: { telemetry: { isEnabled: false, tracer: counting } } });
    await off.generate('look up r2');
    const never = new Agent({ id: 'ops', model: scriptedModel(steps), tools: { lookup_record: tool }, storage: database });
    await never.generate('look up r2');
    expect(started).toBe(0);
    expect(spans()).toEqual([]);

    // The same tracer, on: it is used (the counter above can fail).
    const on = new Agent({ id: 'ops', model: scriptedModel(steps), tools: { lookup_record: tool }, storage: database, defaultOptions: { telemetry: { isEnabled: false } } });
    await on.generate('look up r2', { telemetry: { isEnabled: true, tracer: counting } });
    // Two model calls and a tool call.
    expect(started).toBe(3);
  });
});
