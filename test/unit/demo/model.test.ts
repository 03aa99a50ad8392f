import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3StreamPart, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatQuestionAnswer } from '../../../src/agent/ask-user.js';
import { denialMessage } from '../../../src/agent/denied-call.js';
import { collect } from '../../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import type { AgentChunk, ApprovalRequest, SuspensionRequest } from '../../../src/agent/api-types.js';
import { extractionPrompt } from '../../../src/agent/extraction-prompt.js';
import { createDemoAgents, type DemoAgents } from '../../../src/demo/create-demo-agents.js';
import { createDemoModel } from '../../../src/demo/model/create-demo-model.js';
import { createDemoTables, demoDb, type DemoDb } from '../../../src/demo/demo-tables.js';
import { seedDemoData } from '../../../src/demo/seed-demo-data.js';

const model = createDemoModel({ chunkDelayMs: 0 });

const spec = (name: string): LanguageModelV3FunctionTool => ({ type: 'function', name, inputSchema: { type: 'object' } });
const opsTools = ['lookup_record', 'delete_record', 'deploy_service', 'ask_user', 'agent-billing'].map(spec);
const billingTools = [spec('issue_refund')];

interface Step {
  calls: Array<{ toolName: string; input: unknown }>;
  outputs: LanguageModelV3ToolResultOutput[];
}

let stepIds = 0;

/** system + user request, then for each step the model's calls and the tool results for them. */
function conversation(request: string, ...steps: Step[]): LanguageModelV3Message[] {
  const prompt: LanguageModelV3Message[] = [
    { role: 'system', content: 'You are Ops.' },
    { role: 'user', content: [{ type: 'text', text: request }] },
  ];
  for (const step of steps) {
    const ids = step.calls.map(() => `call_${++stepIds}`);
    prompt.push({
      role: 'assistant',
      content: step.calls.map((c, i) => ({ type: 'tool-call' as const, toolCallId: ids[i]!, toolName: c.toolName, input: c.input })),
    });
    prompt.push({
      role: 'tool',
      content: step.calls.map((c, i) => ({
        type: 'tool-result' as const,
        toolCallId: ids[i]!,
        toolName: c.toolName,
        output: step.outputs[i]!,
      })),
    });
  }
  return prompt;
}

const json = (value: unknown): LanguageModelV3ToolResultOutput => ({ type: 'json', value: value as never });
const step = (toolName: string, input: unknown, output: LanguageModelV3ToolResultOutput): Step => ({
  calls: [{ toolName, input }],
  outputs: [output],
});
/** askUserTool's result for an answer (Mastra's shape): the question is in the call's input. */
const answered = (input: { question: string }, answer: unknown): Step =>
  step('ask_user', input, json({ content: `User answered: ${formatQuestionAnswer(answer)}`, isError: false }));

interface Streamed {
  parts: LanguageModelV3StreamPart[];
  text: string;
  deltas: string[];
  calls: Array<{ toolName: string; input: unknown; toolCallId: string }>;
  finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }>;
}

async function stream(prompt: LanguageModelV3Message[], tools = opsTools, extra: Partial<LanguageModelV3CallOptions> = {}): Promise<Streamed> {
  const { stream } = await model.doStream({ prompt, tools, toolChoice: { type: 'auto' }, ...extra });
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  const deltas = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : []));
  const calls = parts.flatMap((p) =>
    p.type === 'tool-call' ? [{ toolName: p.toolName, input: JSON.parse(p.input) as unknown, toolCallId: p.toolCallId }] : [],
  );
  const finish = parts.find((p): p is Streamed['finish'] => p.type === 'finish');
  if (!finish) throw new Error('stream ended without a finish part');
  return { parts, text: deltas.join(''), deltas, calls, finish };
}

const say = (text: string, tools = opsTools) => stream(conversation(text), tools);
const only = (s: Streamed) => s.calls.map((c) => ({ toolName: c.toolName, input: c.input }));

describe('demo model: identity and stream shape', () => {
  it('is a LanguageModelV3 named so it can be told apart from real models', () => {
    expect(model).toMatchObject({ specificationVersion: 'v3', provider: 'demo', modelId: 'demo-model' });
  });

  it('streams text in several deltas inside one text block and finishes with plausible usage', async () => {
    const s = await say('hello');
    const types = s.parts.map((p) => p.type);
    expect(types[0]).toBe('stream-start');
    expect(types.filter((t) => t === 'text-start')).toHaveLength(1);
    expect(types.filter((t) => t === 'text-end')).toHaveLength(1);
    expect(types.indexOf('text-start')).toBeLessThan(types.indexOf('text-delta'));
    expect(types.lastIndexOf('text-delta')).toBeLessThan(types.indexOf('text-end'));
    expect(types[types.length - 1]).toBe('finish');
    expect(s.deltas.length).toBeGreaterThan(3);
    expect(s.calls).toEqual([]);
    expect(s.finish.finishReason.unified).toBe('stop');

    const { inputTokens, outputTokens } = s.finish.usage;
    expect(inputTokens.total).toBe(inputTokens.noCache);
    expect(inputTokens.total).toBeGreaterThan(10);
    expect(outputTokens.total).toBe(Math.ceil(s.text.length / 4));
    expect(outputTokens).toMatchObject({ text: outputTokens.total, reasoning: 0 });
  });

  it('gives every tool call a unique demo_<counter>_<random> id and finishes with tool-calls', async () => {
    const a = await say('delete abc-123 def-456');
    const b = await say('delete abc-123');
    const ids = [...a.calls, ...b.calls].map((c) => c.toolCallId);
    for (const id of ids) expect(id).toMatch(/^demo_\d+_[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBe(3);
    expect(a.finish.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_calls' });
    expect(a.text).toBe('');
    // Tool input is announced before the call, as a provider streaming arguments would.
    const types = a.parts.map((p) => p.type);
    expect(types.indexOf('tool-input-start')).toBeLessThan(types.indexOf('tool-call'));
  });

  it('pauses between text deltas by default, so Slack can show the text growing', async () => {
    const slow = createDemoModel();
    const prompt = conversation('lookup zzz-000', step('lookup_record', { id: 'zzz-000' }, json({ found: false, message: 'No record with id "zzz-000" in the demo tables.' })));
    const started = Date.now();
    const { stream: s } = await slow.doStream({ prompt, tools: opsTools });
    const reader = s.getReader();
    let deltas = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'text-delta') deltas += 1;
    }
    expect(deltas).toBeGreaterThan(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual((deltas - 1) * 20);
  });

  it('stops streaming when the call is aborted', async () => {
    const slow = createDemoModel({ chunkDelayMs: 50 });
    const controller = new AbortController();
    const { stream: s } = await slow.doStream({ prompt: conversation('hello'), tools: opsTools, abortSignal: controller.signal });
    const reader = s.getReader();
    await reader.read();
    controller.abort(new Error('user went away'));
    const drained = (async () => {
      for (;;) if ((await reader.read()).done) return 'closed';
    })();
    await expect(drained).rejects.toThrow('user went away');
    const aborted = new AbortController();
    aborted.abort(new Error('too late'));
    await expect(slow.doStream({ prompt: conversation('hello'), abortSignal: aborted.signal })).rejects.toThrow('too late');
  });
});

describe('demo model: new requests', () => {
  it.each([
    ['delete record abc-123', 'abc-123'],
    ['delete abc-123', 'abc-123'],
    ['DELETE RECORD abc-123', 'abc-123'],
    ['<@U0BOTUSER> delete record abc-123', 'abc-123'],
    ['<@U0BOTUSER|ops>   please remove `ghi-789`.', 'ghi-789'],
  ])('%s → delete_record', async (text, id) => {
    expect(only(await say(text))).toEqual([{ toolName: 'delete_record', input: { id } }]);
  });

  it('several ids in one request become one call each, in one step', async () => {
    expect(only(await say('delete records abc-123, def-456 and abc-123'))).toEqual([
      { toolName: 'delete_record', input: { id: 'abc-123' } },
      { toolName: 'delete_record', input: { id: 'def-456' } },
    ]);
  });

  it('several requests joined by "and" become the calls of one step; a part without a verb takes the one before', async () => {
    expect(only(await say('refund order 1042 for $25 and order 1044 for $10 and delete record abc-123', billingTools.concat(opsTools)))).toEqual([
      { toolName: 'agent-billing', input: { prompt: 'Refund order 1042 for 2500 cents' } },
      { toolName: 'agent-billing', input: { prompt: 'Refund order 1044 for 1000 cents' } },
      { toolName: 'delete_record', input: { id: 'abc-123' } },
    ]);
    expect(only(await say('delete record abc-123 and record def-456; delete ghi-789'))).toEqual([
      { toolName: 'delete_record', input: { id: 'abc-123' } },
      { toolName: 'delete_record', input: { id: 'def-456' } },
      { toolName: 'delete_record', input: { id: 'ghi-789' } },
    ]);
  });

  it('a compound request with a part it cannot act on is read as one request, as before', async () => {
    // "wrong size" is not a request of its own: the refund's reason keeps its "and".
    expect(only(await say('refund order 1042 for $25 because damaged and wrong size', billingTools))).toEqual([
      { toolName: 'issue_refund', input: { orderId: '1042', amountCents: 2500, reason: expect.stringContaining('damaged') } },
    ]);
  });

  it.each([
    ['look up record def-456', 'def-456'],
    ['lookup def-456', 'def-456'],
    ['Look Up DEF-456', 'DEF-456'],
    ['show record ghi-789', 'ghi-789'],
    ['<@U0BOTUSER> can you find record zzz-000?', 'zzz-000'],
  ])('%s → lookup_record', async (text, id) => {
    expect(only(await say(text))).toEqual([{ toolName: 'lookup_record', input: { id } }]);
  });

  it.each([
    ['refund order 1042 for $25', 'Refund order 1042 for 2500 cents'],
    ['<@U0BOTUSER> Refund order 1042 for $25', 'Refund order 1042 for 2500 cents'],
    ['refund $1,500.50 on order 1043', 'Refund order 1043 for 150050 cents'],
    ['refund $19.99 on order #1044', 'Refund order 1044 for 1999 cents'],
    ['refund 2500 cents on order 1042', 'Refund order 1042 for 2500 cents'],
    ['refund order 1044 for 12 dollars because it arrived damaged.', 'Refund order 1044 for 1200 cents. Reason: it arrived damaged'],
  ])('ops: %s → agent-billing', async (text, prompt) => {
    expect(only(await say(text))).toEqual([{ toolName: 'agent-billing', input: { prompt } }]);
  });

  it.each([
    ['Refund order 1042 for 2500 cents', { orderId: '1042', amountCents: 2500 }],
    ['refund order 1042 for $25', { orderId: '1042', amountCents: 2500 }],
    ['refund $1,500.50 on order 1043', { orderId: '1043', amountCents: 150050 }],
    ['refund $0.10 on order 1044', { orderId: '1044', amountCents: 10 }],
    ['refund $1,234,567.89 on order 1043', { orderId: '1043', amountCents: 123456789 }],
    ['refund $4.35 on order 1044', { orderId: '1044', amountCents: 435 }],
    ['Refund order 1044 for 500 cents. Reason: damaged in transit', { orderId: '1044', amountCents: 500, reason: 'damaged in transit' }],
  ])('billing: %s → issue_refund', async (text, input) => {
    expect(only(await say(text, billingTools))).toEqual([{ toolName: 'issue_refund', input }]);
  });

  it('billing without an amount says what is missing instead of guessing', async () => {
    const s = await say('Refund order 1042', billingTools);
    expect(s.calls).toEqual([]);
    expect(s.text).toBe('How much should I refund on order 1042?');
  });

  it.each([
    ['deploy api 2.3 to production', { service: 'api', environment: 'production', version: '2.3' }],
    ['deploy web v1.4 to staging', { service: 'web', environment: 'staging', version: 'v1.4' }],
    ['<@U0BOTUSER> Ship api@2.3.1 to prod', { service: 'api', environment: 'production', version: '2.3.1' }],
    ['please deploy version 1.0.0-rc.1 of the billing-api service to stage', {
      service: 'billing-api',
      environment: 'staging',
      version: '1.0.0-rc.1',
    }],
  ])('%s → deploy_service', async (text, input) => {
    expect(only(await say(text))).toEqual([{ toolName: 'deploy_service', input }]);
  });

  it('uses only the tools it was offered, and none when toolChoice is none', async () => {
    const noTools = await stream(conversation('delete abc-123'), []);
    expect(noTools.calls).toEqual([]);
    expect(noTools.text).toMatch(/can't delete records here/);
    const none = await stream(conversation('delete abc-123'), opsTools, { toolChoice: { type: 'none' } });
    expect(none.calls).toEqual([]);
  });
});

describe('demo model: clarification', () => {
  it('"deploy api" asks which environment', async () => {
    expect(only(await say('deploy api'))).toEqual([
      {
        toolName: 'ask_user',
        input: { question: 'Which environment should I deploy api to?', options: [{ label: 'staging' }, { label: 'production' }] },
      },
    ]);
  });

  it('"deploy api to production" asks for the version in free text', async () => {
    expect(only(await say('deploy api to production'))).toEqual([
      { toolName: 'ask_user', input: { question: 'Which version of api should I deploy?' } },
    ]);
  });

  it('"deploy" alone asks for the service first', async () => {
    expect(only(await say('deploy to staging'))).toEqual([
      { toolName: 'ask_user', input: { question: 'Which service should I deploy?' } },
    ]);
  });

  it('"clean up records" asks which records, several allowed', async () => {
    expect(only(await say('<@U0BOTUSER> clean up records'))).toEqual([
      {
        toolName: 'ask_user',
        input: {
          question: 'Which records should I delete?',
          options: [
            { label: 'abc-123', description: 'Q3 vendor contract' },
            { label: 'def-456', description: 'Onboarding checklist draft' },
            { label: 'ghi-789', description: 'Old staging credentials note' },
          ],
          selectionMode: 'multi_select',
        },
      },
    ]);
  });

  it('"delete a record" asks for one record; "which regions" asks a multi-select question', async () => {
    expect(only(await say('delete a record'))).toEqual([
      { toolName: 'ask_user', input: expect.objectContaining({ question: 'Which record should I delete?' }) },
    ]);
    const [delOne] = (await say('delete a record')).calls;
    expect(delOne!.input).not.toHaveProperty('selectionMode');
    expect(only(await say('Which regions should we use?'))).toEqual([
      {
        toolName: 'ask_user',
        input: {
          question: 'Which regions should this apply to?',
          options: [{ label: 'us-east-1' }, { label: 'eu-west-1' }, { label: 'ap-southeast-2' }],
          selectionMode: 'multi_select',
        },
      },
    ]);
  });

  it('a refund missing its amount or its order asks for it', async () => {
    expect(only(await say('refund order 1042'))).toEqual([
      { toolName: 'ask_user', input: { question: 'How much should I refund on order 1042?' } },
    ]);
    expect(only(await say('refund $25'))).toEqual([
      { toolName: 'ask_user', input: { question: 'Which order should I refund $25.00 on?' } },
    ]);
    // Three decimals is not an amount in dollars; asking beats rounding someone's money.
    expect(only(await say('refund $25.505 on order 1042'))).toEqual([
      { toolName: 'ask_user', input: { question: 'How much should I refund on order 1042?' } },
    ]);
  });

  it('the environment answer continues the deploy', async () => {
    const asked = { question: 'Which environment should I deploy api to?', options: [{ label: 'staging' }, { label: 'production' }] };
    const s = await stream(conversation('deploy api 2.3', answered(asked, 'production')));
    expect(only(s)).toEqual([
      { toolName: 'deploy_service', input: { service: 'api', environment: 'production', version: '2.3' } },
    ]);
  });

  it('environment then version answers, one question at a time, end in the deploy', async () => {
    const env = { question: 'Which environment should I deploy api to?', options: [{ label: 'staging' }, { label: 'production' }] };
    const afterEnv = await stream(conversation('deploy api', answered(env, 'staging')));
    expect(only(afterEnv)).toEqual([{ toolName: 'ask_user', input: { question: 'Which version of api should I deploy?' } }]);

    const version = { question: 'Which version of api should I deploy?' };
    const done = await stream(conversation('deploy api', answered(env, 'staging'), answered(version, 'version v1.4 please')));
    expect(only(done)).toEqual([
      { toolName: 'deploy_service', input: { service: 'api', environment: 'staging', version: 'v1.4' } },
    ]);
  });

  it('an unreadable answer is reported, not guessed at or asked again', async () => {
    const version = { question: 'Which version of api should I deploy?' };
    const s = await stream(conversation('deploy api to production', answered(version, 'whatever is newest')));
    expect(s.calls).toEqual([]);
    expect(s.text).toBe('I could not read a version from "`whatever is newest`", so I did nothing. Please ask again with it included.');
  });

  it('chosen records become one delete_record call each, in one step', async () => {
    const asked = { question: 'Which records should I delete?', selectionMode: 'multi_select' };
    const s = await stream(conversation('clean up records', answered(asked, ['abc-123', 'ghi-789'])));
    expect(only(s)).toEqual([
      { toolName: 'delete_record', input: { id: 'abc-123' } },
      { toolName: 'delete_record', input: { id: 'ghi-789' } },
    ]);
    expect(new Set(s.calls.map((c) => c.toolCallId)).size).toBe(2);
  });

  it('an amount answer continues the refund through billing', async () => {
    const asked = { question: 'How much should I refund on order 1042?' };
    const s = await stream(conversation('refund order 1042', answered(asked, '$1,500.50')));
    expect(only(s)).toEqual([{ toolName: 'agent-billing', input: { prompt: 'Refund order 1042 for 150050 cents' } }]);
  });

  it('region answers are read back', async () => {
    const asked = { question: 'Which regions should this apply to?', selectionMode: 'multi_select' };
    const s = await stream(conversation('which regions', answered(asked, ['us-east-1', 'eu-west-1'])));
    expect(s.calls).toEqual([]);
    expect(s.text).toMatch(/^You chose `us-east-1` and `eu-west-1`\./);
  });

  it('an answer to a question it did not ask is acknowledged, not acted on', async () => {
    const s = await stream(conversation('deploy api', answered({ question: 'Favourite colour?' }, 'blue')));
    expect(s.calls).toEqual([]);
    expect(s.text).toBe('You answered `blue` to "Favourite colour?".');
  });
});

describe('demo model: after tool results', () => {
  const del = (output: LanguageModelV3ToolResultOutput) =>
    stream(conversation('delete record abc-123', step('delete_record', { id: 'abc-123' }, output)));

  it('reports a deletion', async () => {
    const s = await del(json({ deleted: true, id: 'abc-123', title: 'Q3 vendor contract', deletedAt: '2025-01-01T00:00:00.000Z' }));
    expect(s.text).toBe('Deleted record abc-123.');
    expect(s.calls).toEqual([]);
    expect(s.finish.finishReason.unified).toBe('stop');
  });

  it('reports a deletion that found nothing to delete', async () => {
    const s = await del(json({ deleted: false, id: 'abc-123', reason: 'not-found', message: 'No record with id "abc-123".' }));
    expect(s.text).toBe('No record with id "abc-123". Nothing was deleted.');
  });

  it('reports a record deleted before, with the time in words rather than a timestamp', async () => {
    const s = await del(json({ deleted: false, id: 'abc-123', reason: 'already-deleted', deletedAt: '2026-12-01T23:01:44.253Z', message: 'Record "abc-123" was already deleted at 2026-12-01T23:01:44.253Z.' }));
    expect(s.text).toBe('Record abc-123 was already deleted on 2026-12-01 at 23:01 UTC, so nothing was deleted.');
  });

  it.each([
    ['still in use', 'I did not delete record abc-123: still in use.'],
    [undefined, 'I did not delete record abc-123: the request was declined.'],
    ['The user declined this tool call.', 'I did not delete record abc-123: the request was declined.'],
    [
      'The approval request expired before anyone approved it.',
      'I did not delete record abc-123: the request expired before anyone approved it.',
    ],
  ])('a denial with reason %j is reported as such', async (reason, text) => {
    const output: LanguageModelV3ToolResultOutput = reason === undefined ? { type: 'execution-denied' } : { type: 'execution-denied', reason };
    const s = await del(output);
    expect(s.text).toBe(text);
    expect(s.calls).toEqual([]);
  });

  it.each([
    [denialMessage('delete_record', { kind: 'declined', by: 'U0ALICE', reason: 'done' }), 'I did not delete record abc-123: @alice declined it, saying "done".'],
    [denialMessage('delete_record', { kind: 'declined', by: 'U0ALICE' }), 'I did not delete record abc-123: @alice declined it.'],
    [denialMessage('delete_record', { kind: 'expired' }), 'I did not delete record abc-123: the request expired before anyone approved it.'],
    [denialMessage('delete_record', { kind: 'cancelled', by: 'U0BOB', reason: 'Cancelled in Slack.' }), 'I did not delete record abc-123: @bob cancelled the request (Cancelled in Slack).'],
  ])("the runtime's denial %j says who and why", async (reason, text) => {
    expect((await del({ type: 'execution-denied', reason })).text).toBe(text);
  });

  it('a declined edit is reported with the edited arguments the call shows, not the ones first asked for', async () => {
    const reason = denialMessage('issue_refund', { kind: 'declined', by: 'U0FIN', reason: 'too much', edit: { editor: 'U0CAROL', changes: 'amountCents 2500 → 150000' } });
    const s = await stream(
      conversation('Refund order 1042 for 2500 cents', step('issue_refund', { orderId: '1042', amountCents: 150000 }, { type: 'execution-denied', reason })),
      billingTools,
    );
    expect(s.text).toBe('I did not refund $1,500.00 on order 1042: U0FIN declined it after @carol changed it (amount $25.00 → $1,500.00), saying "too much".');
  });

  it('reports a tool error', async () => {
    const s = await stream(
      conversation(
        'Refund order 9999 for 100 cents',
        step('issue_refund', { orderId: '9999', amountCents: 100 }, { type: 'error-text', value: 'Tool issue_refund failed: order 9999 does not exist' }),
      ),
      billingTools,
    );
    expect(s.text).toBe('That failed: order 9999 does not exist.');
  });

  it('summarises a lookup, found or not', async () => {
    const found = await stream(
      conversation(
        'lookup def-456',
        step('lookup_record', { id: 'def-456' }, json({
          found: true,
          record: { id: 'def-456', title: 'Onboarding checklist draft', owner: 'bob', deleted: false, deletedAt: null },
        })),
      ),
    );
    expect(found.text).toBe('Record def-456 is "Onboarding checklist draft", owned by bob.');
    const missing = await stream(
      conversation('lookup zzz-000', step('lookup_record', { id: 'zzz-000' }, json({ found: false, message: 'No record with id "zzz-000".' }))),
    );
    expect(missing.text).toBe('No record with id "zzz-000".');
  });

  it('reports a deploy, a cancelled deploy, and a cancelled confirmation', async () => {
    const input = { service: 'api', environment: 'production', version: '2.3' };
    const deployed = await stream(
      conversation('deploy api 2.3 to production', step('deploy_service', input, json({
        deployed: true, deploymentId: 7, service: 'api', environment: 'production', version: '2.3', createdAt: '2025-01-01T00:00:00.000Z',
      }))),
    );
    expect(deployed.text).toBe('Deployed api 2.3 to production.');
    const cancelled = await stream(
      conversation('deploy api 2.3 to production', step('deploy_service', input, json({ deployed: false, status: 'cancelled', message: 'deployment cancelled' }))),
    );
    expect(cancelled.text).toBe('Deployment cancelled.');
    const withdrawn = await stream(
      conversation('deploy api 2.3 to production', step('deploy_service', input, { type: 'execution-denied', reason: 'The request was cancelled.' })),
    );
    expect(withdrawn.text).toBe('I did not deploy api 2.3 to production: the request was cancelled.');
  });

  it('reports a refund in dollars, with the refund id and what is left', async () => {
    const s = await stream(
      conversation('Refund order 1042 for 2500 cents', step('issue_refund', { orderId: '1042', amountCents: 2500 }, json({
        refundId: 3, orderId: '1042', amountCents: 2500, refundedCents: 2500, remainingCents: 2500,
      }))),
      billingTools,
    );
    expect(s.text).toBe('Refunded $25.00 on order 1042. Refund #3; $25.00 is left to refund on the order.');
    const denied = await stream(
      conversation('Refund order 1043 for 150050 cents', step('issue_refund', { orderId: '1043', amountCents: 150050 }, { type: 'execution-denied', reason: 'not this week' })),
      billingTools,
    );
    expect(denied.text).toBe('I did not refund $1,500.50 on order 1043: not this week.');
  });

  it("relays the sub-agent's reply", async () => {
    const reply = 'Refunded $25.00 on order 1042. Refund #3; $25.00 is left to refund on the order.';
    const s = await stream(
      conversation('refund order 1042 for $25', step('agent-billing', { prompt: 'Refund order 1042 for 2500 cents' }, json({ text: reply }))),
    );
    expect(s.text).toBe(reply);
    expect(s.calls).toEqual([]);
  });

  it('reports each result of a step with several calls, in order', async () => {
    const s = await stream(
      conversation('clean up records', {
        calls: [
          { toolName: 'delete_record', input: { id: 'abc-123' } },
          // Some callers hand tool inputs over as JSON text rather than objects.
          { toolName: 'delete_record', input: '{"id":"ghi-789"}' },
        ],
        outputs: [
          json({ deleted: true, id: 'abc-123', title: 'Q3 vendor contract', deletedAt: '2025-01-01T00:00:00.000Z' }),
          { type: 'execution-denied', reason: 'keep it' },
        ],
      }),
    );
    expect(s.text).toBe('Deleted record abc-123. I did not delete record ghi-789: keep it.');
  });
});

describe("demo model: reading a reply for the runtime's auto-resume", () => {
  /** The prompt auto-resume sends when its own readings of a reply fail, built by the runtime's own function. */
  const extraction = (schema: unknown, question: unknown, reply: string) =>
    stream([
      { role: 'system', content: extractionPrompt(JSON.stringify(schema), question) },
      { role: 'user', content: [{ type: 'text', text: reply }] },
    ], []);
  const confirm = { type: 'object', properties: { confirmed: { type: 'boolean' } } };
  const environments = { question: 'Which environment?', options: [{ label: 'staging' }, { label: 'production' }] };
  const regions = { question: 'Which regions?', options: [{ label: 'us-east-1' }, { label: 'eu-west-1' }, { label: 'ap-southeast-2' }] };

  it('answers a yes/no question with JSON, and in words when the reply says both or neither', async () => {
    expect((await extraction(confirm, null, 'sure, go ahead')).text).toBe('{"confirmed":true}');
    expect((await extraction(confirm, null, 'hmm, please cancel that')).text).toBe('{"confirmed":false}');
    expect((await extraction(confirm, null, 'maybe later')).text).toBe('I could not tell which answer that is.');
  });

  it('picks options by label, by a hurried alias, or by number, and everything for "all"', async () => {
    expect((await extraction({ type: 'string' }, environments, '<@U0BOTUSER> prod please')).text).toBe('"production"');
    expect((await extraction({ type: 'array' }, regions, '1 and 3')).text).toBe('["us-east-1","ap-southeast-2"]');
    expect((await extraction({ type: 'array' }, regions, 'all of them')).text).toBe(JSON.stringify(regions.options.map((o) => o.label)));
    expect((await extraction({ type: 'string' }, environments, 'both')).text).toBe('I could not tell which answer that is.');
    expect((await extraction({ type: 'string' }, null, 'v2.1 &amp; up')).text).toBe('"v2.1 & up"');
  });
});

describe('demo model: any tool by name', () => {
  const pageOncall: LanguageModelV3FunctionTool = {
    type: 'function',
    name: 'runbooks__page_oncall',
    description: 'Page the on-call engineer.',
    inputSchema: { type: 'object', properties: { team: { type: 'string', enum: ['support', 'infra'] }, summary: { type: 'string' }, urgent: { type: 'boolean' }, minutes: { type: 'integer' } } },
  };
  const tools = [...opsTools, pageOncall];

  it('calls a tool named with JSON arguments, in backticks or not', async () => {
    expect(only(await say('<@U0BOT> call runbooks__page_oncall with {"team": "support", "summary": "printer on fire"}', tools))).toEqual([
      { toolName: 'runbooks__page_oncall', input: { team: 'support', summary: 'printer on fire' } },
    ]);
    expect(only(await say('call `lookup_record` with `{"id": "def-456"}`', tools))).toEqual([{ toolName: 'lookup_record', input: { id: 'def-456' } }]);
  });

  it('reads key=value pairs by the tool’s schema: values run to the next key, numbers and booleans where it says so', async () => {
    expect(only(await say('runbooks__page_oncall team=infra summary=disk full on db-2 urgent=true minutes=15', tools))).toEqual([
      { toolName: 'runbooks__page_oncall', input: { team: 'infra', summary: 'disk full on db-2', urgent: true, minutes: 15 } },
    ]);
    // The policy's name for an MCP tool finds it too; a quoted value keeps what is inside.
    expect(only(await say('call runbooks.page_oncall team=support summary="a = b"', tools))).toEqual([
      { toolName: 'runbooks__page_oncall', input: { team: 'support', summary: 'a = b' } },
    ]);
    expect(only(await say('call lookup_record id=1042', tools))).toEqual([{ toolName: 'lookup_record', input: { id: '1042' } }]);
  });

  it('says what is wrong instead of guessing: an unknown tool, arguments it cannot read', async () => {
    const unknown = await say('call github__create_issue with {}', tools);
    expect(unknown.calls).toEqual([]);
    expect(unknown.text).toContain('I have no tool `github__create_issue`. I can call `lookup_record`');
    const broken = await say('call lookup_record with {"id": def-456}', tools);
    expect(broken.calls).toEqual([]);
    expect(broken.text).toMatch(/^I could not read the arguments for `lookup_record`: that is not valid JSON/);
    const words = await say('call lookup_record for def-456', tools);
    expect(words.text).toContain('is neither JSON nor key=value');
  });

  it('leaves requests that only start like a call to the phrases it knows', async () => {
    expect(only(await say('run a deploy of api 2.3 to staging', tools))).toEqual([
      { toolName: 'deploy_service', input: { service: 'api', environment: 'staging', version: '2.3' } },
    ]);
    expect(only(await say('delete record abc-123', tools))).toEqual([{ toolName: 'delete_record', input: { id: 'abc-123' } }]);
  });

  it('reports what an MCP tool said', async () => {
    const s = await stream(conversation('call runbooks__page_oncall with {}', step('runbooks__page_oncall', {}, { type: 'text', value: 'Paged the support on-call: printer on fire' })), tools);
    expect(s.text).toBe('Paged the support on-call: printer on fire.');
  });
});

describe('demo model: help and doGenerate', () => {
  it('answers anything else with a Markdown list of what it can do, and says what it is', async () => {
    for (const text of ['hello', '<@U0BOTUSER> what is the weather?', 'help', '']) {
      const s = await say(text);
      expect(s.calls).toEqual([]);
      expect(s.text).toContain('built-in demo model');
      expect(s.text).toContain('Set MODEL');
      for (const phrase of ['look up record def-456', 'delete record abc-123', 'clean up records', 'deploy api 2.3 to staging', 'deploy api', 'refund order 1042 for $25', 'which regions']) {
        expect(s.text).toContain(`- \`${phrase}`);
      }
    }
  });

  it('lists only what the tools it was given allow', async () => {
    const s = await say('hi', billingTools);
    const understood = s.text.slice(0, s.text.indexOf('I can also call')).split('\n').filter((l) => l.startsWith('- '));
    expect(understood).toEqual([expect.stringContaining('refund order 1042 for $25')]);
  });

  it('lists every tool it has, an MCP server\'s included, with how to call one by name', async () => {
    const tools = [...opsTools, { ...spec('runbooks__page_oncall'), description: 'Page the on-call engineer of a team about an incident. Use sparingly.' }];
    const s = await say('help', tools);
    expect(s.text).toContain('`call <tool> with {"key": "value"}` or `<tool> key=value`');
    const listed = s.text.slice(s.text.indexOf('My tools:')).split('\n').filter((l) => l.startsWith('- '));
    expect(listed).toEqual([...opsTools.map((t) => `- \`${t.name}\``), '- `runbooks__page_oncall`: Page the on-call engineer of a team about an incident.']);
    const none = await stream(conversation('help'), opsTools, { toolChoice: { type: 'none' } });
    expect(none.text).toContain('I have no tools here');
  });

  it('doGenerate decides exactly what doStream does', async () => {
    const prompts = [
      conversation('hello'),
      conversation('delete abc-123 def-456'),
      conversation('deploy api'),
      conversation('refund $1,500.50 on order 1043'),
      conversation('delete record abc-123', step('delete_record', { id: 'abc-123' }, { type: 'execution-denied', reason: 'still in use' })),
    ];
    for (const prompt of prompts) {
      const streamed = await stream(prompt);
      const generated = await model.doGenerate({ prompt, tools: opsTools, toolChoice: { type: 'auto' } });
      const text = generated.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
      const calls = generated.content.flatMap((c) => (c.type === 'tool-call' ? [{ toolName: c.toolName, input: JSON.parse(c.input) as unknown }] : []));
      expect(text).toBe(streamed.text);
      expect(calls).toEqual(only(streamed));
      expect(generated.finishReason).toEqual(streamed.finish.finishReason);
      expect(generated.usage.inputTokens.total).toBe(streamed.finish.usage.inputTokens.total);
      expect(generated.warnings).toEqual([]);
      for (const c of generated.content) if (c.type === 'tool-call') expect(c.toolCallId).toMatch(/^demo_\d+_[0-9a-f]{8}$/);
    }
  });
});

function approvalsOf(chunks: AgentChunk[]): ApprovalRequest[] {
  return chunks.flatMap((c) => (c.type === 'tool-call-approval' ? [c.payload] : []));
}

function suspensionsOf(chunks: AgentChunk[]): SuspensionRequest[] {
  return chunks.flatMap((c) => (c.type === 'tool-call-suspended' ? [c.payload] : []));
}

describe('demo model driving the demo agents on PGlite', () => {
  let database: TestDatabase;
  let demo: DemoDb;
  let ops: DemoAgents['ops'];

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    await createDemoTables(database.db);
    await seedDemoData(database.db);
    demo = demoDb(database.db);
    ({ ops } = createDemoAgents({ db: database.db, model: createDemoModel({ chunkDelayMs: 0 }), storage: database }));
  });
  afterAll(async () => {
    await database?.close();
  });

  const deletedAt = async (id: string) =>
    (await demo.selectFrom('demo_records').select('deleted_at').where('id', '=', id).executeTakeFirstOrThrow()).deleted_at;

  it('"delete record abc-123" waits for approval, then deletes and says so', async () => {
    const first = await ops.stream('<@U0BOTUSER> delete record abc-123', { requester: 'UALICE' });
    const [approval] = approvalsOf(await collect(first));
    expect(approval).toMatchObject({ toolName: 'delete_record', args: { id: 'abc-123' }, path: ['ops'] });
    expect(await first.finishReason).toBe('suspended');
    expect(await deletedAt('abc-123')).toBeNull();

    const resumed = await ops.approveToolCall({ runId: first.runId, toolCallId: approval!.toolCallId, actor: { userId: 'UALICE' } });
    await collect(resumed);
    expect(await resumed.text).toBe('Deleted record abc-123.');
    expect(await resumed.finishReason).toBe('stop');
    expect(await deletedAt('abc-123')).toBeInstanceOf(Date);
  });

  it('"refund order 1042 for $25" goes through billing and runs once someone else approves', async () => {
    const first = await ops.stream('refund order 1042 for $25', { requester: 'UALICE' });
    const [approval] = approvalsOf(await collect(first));
    expect(approval).toMatchObject({
      toolName: 'issue_refund',
      path: ['ops', 'billing'],
      args: { orderId: '1042', amountCents: 2500 },
      requester: 'UALICE',
    });

    const self = await ops.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'UALICE' } });
    expect(self.outcome).toBe('not-allowed');

    const resumed = await ops.approveToolCall({ runId: first.runId, toolCallId: approval!.toolCallId, actor: { userId: 'UBOB' } });
    expect(await resumed.text).toMatch(/^Refunded \$25\.00 on order 1042\. Refund #\d+; \$999,975\.00 is left to refund on the order\.$/);
    const refunds = await demo.selectFrom('demo_refunds').selectAll().where('order_id', '=', '1042').execute();
    expect(refunds).toEqual([expect.objectContaining({ amount_cents: 2500 })]);
  });

  it('"deploy api 2.3 to production" waits for someone other than the requester to approve, then asks to confirm, then deploys', async () => {
    const first = await ops.stream('deploy api 2.3 to production', { requester: 'UALICE' });
    const [approval] = approvalsOf(await collect(first));
    expect(approval).toMatchObject({ toolName: 'deploy_service', args: { service: 'api', environment: 'production', version: '2.3' } });
    const self = await ops.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'UALICE' } });
    expect(self).toMatchObject({ outcome: 'not-allowed', why: 'self-approval' });

    const approved = await ops.approveToolCall({ runId: first.runId, toolCallId: approval!.toolCallId, actor: { userId: 'UBOB' } });
    const [suspension] = suspensionsOf(await collect(approved));
    expect(suspension).toMatchObject({ toolName: 'deploy_service', suspendPayload: { message: 'Deploy api 2.3 to production?' } });
    expect(await approved.finishReason).toBe('suspended');
    expect(await demo.selectFrom('demo_deployments').selectAll().where('service', '=', 'api').execute()).toEqual([]);

    const resumed = await ops.resumeStream({ confirmed: true }, { runId: first.runId, actor: { userId: 'UALICE' } });
    expect(await resumed.text).toBe('Deployed api 2.3 to production.');
    const rows = await demo.selectFrom('demo_deployments').selectAll().where('service', '=', 'api').execute();
    expect(rows).toEqual([expect.objectContaining({ environment: 'production', version: '2.3' })]);
  });

  it('a staging deploy needs nobody', async () => {
    const done = await ops.generate('deploy api 2.4 to staging', { requester: 'UALICE' });
    expect(done).toMatchObject({ finishReason: 'stop', text: 'Deployed api 2.4 to staging.' });
  });

  it('"clean up records": the chosen records each wait for approval, then both are deleted', async () => {
    const first = await ops.generate('clean up records', { requester: 'UALICE' });
    expect(first.pending).toMatchObject([{ kind: 'suspension', toolName: 'ask_user' }]);

    const asked = await ops.resumeGenerate(['def-456', 'ghi-789'], { runId: first.runId, actor: { userId: 'UALICE' } });
    expect(asked.pending.map((p) => [p.kind, p.toolName, p.args])).toEqual([
      ['approval', 'delete_record', { id: 'def-456' }],
      ['approval', 'delete_record', { id: 'ghi-789' }],
    ]);

    const [one, two] = asked.pending;
    const still = await ops.approveToolCallGenerate({ runId: first.runId, toolCallId: one!.toolCallId, actor: { userId: 'UBOB' } });
    expect(still.finishReason).toBe('suspended');
    // The run resumes (and runs what was approved) only once its step waits on nothing.
    expect(await deletedAt('def-456')).toBeNull();
    const done = await ops.approveToolCallGenerate({ runId: first.runId, toolCallId: two!.toolCallId, actor: { userId: 'UBOB' } });
    expect(done).toMatchObject({ finishReason: 'stop', text: 'Deleted record def-456. Deleted record ghi-789.' });
    expect(await deletedAt('def-456')).toBeInstanceOf(Date);
    expect(await deletedAt('ghi-789')).toBeInstanceOf(Date);
  });

  it('thread replies answer its questions, read by the demo model when they are not exact', async () => {
    const thread = { threadId: 'C0DEMO:1700000000.000200', resourceId: 'C0DEMO', requester: 'UALICE' };
    const first = await ops.generate('deploy web 1.4', thread);
    expect(first.suspendPayload).toMatchObject({
      toolName: 'ask_user',
      suspendPayload: { question: 'Which environment should I deploy web to?' },
    });

    // Not a label as typed, so the runtime asks the agent's model to read it.
    const done = await ops.generate('stage please', thread);
    expect(done).toMatchObject({ finishReason: 'stop', text: 'Deployed web 1.4 to staging.' });
    const rows = await demo.selectFrom('demo_deployments').selectAll().where('service', '=', 'web').execute();
    expect(rows).toEqual([expect.objectContaining({ environment: 'staging', version: '1.4' })]);
  });

  it('a production confirmation answered in words is read too', async () => {
    const thread = { threadId: 'C0DEMO:1700000000.000300', resourceId: 'C0DEMO', requester: 'UALICE' };
    const first = await ops.generate('deploy worker v7 to production', thread);
    expect(first.pending).toMatchObject([{ kind: 'approval', toolName: 'deploy_service' }]);
    const approved = await ops.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'UBOB' } });
    expect(approved.suspendPayload).toMatchObject({ toolName: 'deploy_service' });
    const done = await ops.generate('hmm, please cancel that', thread);
    expect(done).toMatchObject({ finishReason: 'stop', text: 'Deployment cancelled.' });
    const rows = await demo.selectFrom('demo_deployments').selectAll().where('service', '=', 'worker').execute();
    expect(rows).toEqual([]);
  });
});
