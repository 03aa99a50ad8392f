import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { sql } from 'kysely';
import { z } from 'zod';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { RunAbortedError } from '../../src/agent/errors.js';
import { createTool } from '../../src/agent/tool.js';
import { collect, countingTool } from '../helpers/agents.js';
import { confirmTool } from '../helpers/confirm-tool.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { runRecordCount } from '../helpers/run-record-count.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A model that plays `steps`, except that call number `stuckOn` (from 1) hangs until its abort
 * signal fires, as a provider's fetch does; `honours: false` makes it ignore the signal (a stream
 * that never ends), which the runtime must stop on its own.
 */
function modelStuckOn(stuckOn: number, steps: ScriptStep[], options: { honours?: boolean } = {}) {
  const inner = scriptedModel(steps);
  let calls = 0;
  let reached!: () => void;
  const stuck = new Promise<void>((resolve) => (reached = resolve));
  const model = new MockLanguageModelV3({
    doStream: async (call: LanguageModelV3CallOptions) => {
      calls += 1;
      if (calls !== stuckOn) return inner.doStream(call);
      reached();
      if (options.honours === false) {
        return { stream: new ReadableStream<LanguageModelV3StreamPart>({ start: (c) => c.enqueue({ type: 'stream-start', warnings: [] }) }) };
      }
      return new Promise((_, reject) => {
        call.abortSignal?.addEventListener('abort', () => reject(call.abortSignal!.reason), { once: true });
      });
    },
  });
  return Object.assign(model, { calls: () => calls, stuck });
}

/**
 * `slow_export`: a tool that waits for its abort signal and then returns; `inTool` settles once
 * a call has started, `seen` holds what the signal read when each call went on.
 */
function toolWaitingForAbort() {
  let entered!: () => void;
  const inTool = new Promise<void>((resolve) => (entered = resolve));
  const seen: Array<boolean | undefined> = [];
  const tool = createTool({
    id: 'slow_export',
    description: 'exports slowly',
    inputSchema: z.object({}),
    execute: async (_input, ctx) => {
      entered();
      await new Promise<void>((resolve) => ctx.abortSignal?.addEventListener('abort', () => resolve(), { once: true }));
      seen.push(ctx.abortSignal?.aborted);
      return 'stopped early';
    },
  });
  return { tool, inTool, seen };
}

describeBackends('aborting a run on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('aborts the model call in flight; the run ends with RunAbortedError and leaves no record for a sweep', async () => {
    const model = modelStuckOn(1, [{ text: 'never' }]);
    // Put on record at once, so there is a record the abort must not leave behind.
    const agent = new Agent({ id: 'ops', model, storage: database, recordRunAfterMs: 0, runLeaseMs: 50 });
    const controller = new AbortController();
    const stream = await agent.stream('hello', { abortSignal: controller.signal });
    await model.stuck;
    expect(model.doStreamCalls[0]!.abortSignal).toBe(controller.signal);
    await sleep(20);
    controller.abort(new Error('user pressed stop'));

    const chunks = await collect(stream);
    const error = chunks.find((c) => c.type === 'error')?.payload.error;
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(error).toMatchObject({ code: 'RUN_ABORTED', message: `run ${stream.runId} was aborted: user pressed stop` });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'error' } });
    expect(await runRecordCount(database, stream.runId)).toBe(0);
    await sleep(80);
    expect(await agent.recoverStaleRuns()).toEqual([]);
    expect(model.calls()).toBe(1);
  });

  it('generate rejects with RunAbortedError, even when the provider ignores the signal', async () => {
    const model = modelStuckOn(1, [{ text: 'never' }], { honours: false });
    const agent = new Agent({ id: 'ops', model, storage: database });
    const controller = new AbortController();
    const running = agent.generate('hello', { abortSignal: controller.signal });
    await model.stuck;
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(RunAbortedError);
  });

  it('an already-aborted signal calls no model', async () => {
    const model = scriptedModel([{ text: 'never' }]);
    const agent = new Agent({ id: 'ops', model, storage: database });
    await expect(agent.generate('hello', { abortSignal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'RUN_ABORTED' });
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it('a tool running when the run is aborted gets the signal, and nothing runs after it', async () => {
    const { tool: slow, inTool, seen } = toolWaitingForAbort();
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'slow_export', args: {} }, { toolName: 'slow_export', args: {} }] },
      { text: 'never' },
    ]);
    const agent = new Agent({ id: 'ops', model, tools: { slow_export: slow }, storage: database, recordRunAfterMs: 0 });
    const controller = new AbortController();
    const stream = await agent.stream('export', { abortSignal: controller.signal });
    await inTool;
    controller.abort();
    const result = await stream.result;
    expect(result.error).toBeInstanceOf(RunAbortedError);
    // The second call of the step never started, and the model was not asked again.
    expect(seen).toEqual([true]);
    expect(model.doStreamCalls).toHaveLength(1);
    expect(await runRecordCount(database, stream.runId)).toBe(0);
  });

  it('a step that would pause for an approval is cancelled instead when the abort came while its other call ran', async () => {
    const { tool: slow, inTool } = toolWaitingForAbort();
    const { tool: deleteRecord, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'd1' } }, { toolName: 'slow_export', args: {}, toolCallId: 'call-export' }] },
      { text: 'never' },
    ]);
    const agent = new Agent({ id: 'ops', model, tools: { slow_export: slow, delete_record: deleteRecord }, storage: database });
    const controller = new AbortController();
    const stream = await agent.stream('delete d1 and export', { abortSignal: controller.signal });
    await inTool;
    controller.abort();
    const result = await stream.result;
    expect(result.error).toBeInstanceOf(RunAbortedError);
    expect(result.pending).toEqual([]);
    expect(calls).toEqual([]);
    expect(await runRecordCount(database, stream.runId)).toBe(0);
    const requests = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pending_actions WHERE root_run_id = ${stream.runId}`.execute(database.db);
    expect(requests.rows[0]!.n).toBe(0);
    // The export that ran is on the trail all the same.
    const audit = await sql<{ event: string }>`
      SELECT event FROM audit_events WHERE run_id = ${stream.runId} AND tool_call_id = 'call-export' ORDER BY id`.execute(database.db);
    expect(audit.rows.map((r) => r.event)).toEqual(['started', 'executed']);
  });

  it('a continuation aborted through resumeStream is cancelled: asking again finds no run', async () => {
    const model = modelStuckOn(2, [{ toolCalls: [{ toolName: 'confirm', args: {} }] }, { text: 'never' }]);
    const agent = new Agent({ id: 'ops', model, tools: { confirm: confirmTool }, storage: database });
    const paused = await agent.generate('go');
    expect(paused.finishReason).toBe('suspended');

    const controller = new AbortController();
    const resumed = await agent.resumeStream({ ok: true }, { runId: paused.runId }, { abortSignal: controller.signal });
    await model.stuck;
    controller.abort();
    expect((await resumed.result).error).toBeInstanceOf(RunAbortedError);
    expect(await runRecordCount(database, paused.runId)).toBe(0);
    // The answer was taken before the abort, and nothing of the run is left to give another to.
    await expect(agent.resumeGenerate({ ok: true }, { runId: paused.runId })).rejects.toMatchObject({ code: 'TOOL_CALL_NOT_PENDING' });
    expect((await agent.listSuspendedRuns()).runs.filter((r) => r.runId === paused.runId)).toEqual([]);
  });

  it('aborting a sub-agent\'s continuation cancels its whole tree: the supervisor\'s wait and record go too', async () => {
    const billingModel = modelStuckOn(2, [{ toolCalls: [{ toolName: 'confirm', args: {} }] }, { text: 'never' }]);
    const billing = new Agent({ id: 'billing', model: billingModel, tools: { confirm: confirmTool } });
    const topModel = scriptedModel([{ toolCalls: [{ toolName: 'agent-billing', args: { prompt: 'refund' } }] }, { text: 'never' }]);
    const top = new Agent({ id: 'ops', model: topModel, agents: { billing }, storage: database });
    const paused = await top.generate('refund');
    expect(paused.suspendPayload).toMatchObject({ toolName: 'agent-billing', innerToolName: 'confirm', path: ['ops', 'billing'] });
    expect(await runRecordCount(database, paused.runId)).toBe(2);

    const controller = new AbortController();
    const resumed = await top.resumeStream({ ok: true }, { runId: paused.suspendPayload!.runId }, { abortSignal: controller.signal });
    await billingModel.stuck;
    controller.abort();
    expect((await resumed.result).error).toBeInstanceOf(RunAbortedError);
    expect(await runRecordCount(database, paused.runId)).toBe(0);
    const delegation = await sql<{ status: string }>`
      SELECT status FROM pending_actions WHERE root_run_id = ${paused.runId} AND kind = 'delegation'`.execute(database.db);
    expect(delegation.rows).toEqual([{ status: 'cancelled' }]);
    expect(topModel.doStreamCalls).toHaveLength(1);
    expect((await top.listSuspendedRuns()).runs.filter((r) => r.runId === paused.runId)).toEqual([]);
    const audit = await sql<{ event: string }>`
      SELECT event FROM audit_events WHERE run_id = ${paused.runId} AND tool_name = 'agent-billing' ORDER BY id`.execute(database.db);
    expect(audit.rows.map((r) => r.event)).toContain('cancelled');
  });
});
