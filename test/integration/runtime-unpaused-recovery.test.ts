import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { listAuditEvents } from '../../src/db/audit.js';
import { LeaseLostError } from '../../src/agent/errors.js';
import type { RecoveredRun } from '../../src/agent/api-types.js';
import { interruptedMessage } from '../../src/agent/approved-call.js';
import { createTool } from '../../src/agent/tool.js';
import type { Agent } from '../../src/agent/agent.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { lastToolResults, modelStuckOnFirstCall, modelThatFailsAfter, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeBackends('runs that never paused, when their process stops, on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  const rowOf = async (runId: string) =>
    (
      await sql<{ status: string; claimed: boolean }>`
        SELECT status, claimed_at IS NOT NULL AS claimed FROM run_snapshots WHERE run_id = ${runId}`.execute(database.db)
    ).rows[0];

  /** Polls `read` until it returns something (a loaded machine may take a while), for at most 5 s. */
  async function eventually<T>(read: () => Promise<T | undefined>): Promise<T | undefined> {
    const until = Date.now() + 5_000;
    let value = await read();
    while (value === undefined && Date.now() < until) value = (await sleep(5), await read());
    return value;
  }

  async function takeOver(taker: Agent): Promise<RecoveredRun> {
    let recovered: RecoveredRun | undefined;
    for (let i = 0; i < 400 && !(recovered = (await taker.recoverStaleRuns())[0]); i++) await sleep(5);
    if (!recovered) throw new Error('nothing was taken over');
    return recovered;
  }

  it('a run still waiting on its model after recordRunAfterMs is on record; a stop loses nothing: another instance answers, once', async () => {
    const thread = { threadId: `slow-model-${backend}`, resourceId: 'T1' };
    let release!: () => void;
    const stuck = modelStuckOnFirstCall([{ text: 'answered by the stopped instance' }], new Promise<void>((r) => (release = r)));
    const stalled = agentWith({ model: stuck, storage: database, memory: true, runLeaseMs: 200, recordRunAfterMs: 400 });
    const takerModel = scriptedModel([{ text: 'answered by the instance that took over' }]);
    // Another instance of the same bot; its 1 ms lease makes the stalled instance's claim stale at once.
    const taker = agentWith({ model: takerModel, storage: database, memory: true, runLeaseMs: 1 });

    const stream = await stalled.stream('what is the status of abc-123?', thread);
    // Before the clock runs out, nothing is written for the run; then it is on record, under a claim.
    expect(await rowOf(stream.runId)).toBeUndefined();
    expect(await eventually(() => rowOf(stream.runId))).toEqual({ status: 'running', claimed: true });

    const recovered = await takeOver(taker);
    expect(recovered.runId).toBe(stream.runId);
    expect((await recovered.stream.result).text).toBe('answered by the instance that took over');
    // The instance that took over asked the model the same question, from the start.
    const prompt = JSON.stringify(takerModel.doStreamCalls[0]!.prompt);
    expect(prompt).toContain('what is the status of abc-123?');

    // The stopped process wakes up (well past half its lease) and stops there: no second answer.
    await sleep(250);
    release();
    const result = await stream.result;
    expect(result.finishReason).toBe('error');
    // Its model call did return, but nothing of it is kept: the run ends on the lost claim.
    expect(result.error).toBeInstanceOf(LeaseLostError);
    const memory = await sql<{ text: string }>`
      SELECT message->'content'->0->>'text' AS text FROM thread_messages
      WHERE thread_id = ${thread.threadId} AND message->>'role' = 'assistant' ORDER BY id`.execute(database.db);
    expect(memory.rows.map((r) => r.text)).toEqual(['answered by the instance that took over']);
    expect(await rowOf(stream.runId)).toBeUndefined();
  });

  it('a tool nobody approved is written down before it runs; after a takeover it is reported interrupted, not run again', async () => {
    let charges = 0;
    let takeover: Promise<unknown> | undefined;
    const chargeCard = createTool({
      id: 'charge_card',
      description: 'charges a card, with nobody to approve it',
      inputSchema: z.object({ id: z.string() }),
      execute: async () => {
        charges += 1;
        // The process "freezes" in here; another instance takes the run over meanwhile.
        takeover = (await takeOver(taker)).stream.result;
        await takeover;
        await sleep(250);
        return { charged: true };
      },
    });
    const decide = (options: { prompt: Array<{ role: string }> }): ScriptStep =>
      options.prompt.some((m) => m.role === 'tool') ? { text: 'charge handled' } : { toolCalls: [{ toolName: 'charge_card', args: { id: 'c7' } }] };
    // The clock is off: only the tool call puts the run on record.
    const stalled = agentWith({ model: scriptedModel([decide]), tools: { charge_card: chargeCard }, storage: database, runLeaseMs: 200, recordRunAfterMs: Infinity });
    const takerModel = scriptedModel([decide]);
    const taker = agentWith({ model: takerModel, tools: { charge_card: chargeCard }, storage: database, runLeaseMs: 1 });

    const result = await stalled.generate('charge c7');
    expect(result.error).toBeInstanceOf(LeaseLostError);
    expect((await takeover) as { text: string }).toMatchObject({ text: 'charge handled' });
    expect(charges).toBe(1);
    expect(lastToolResults(takerModel)).toEqual([
      expect.objectContaining({ toolName: 'charge_card', output: { type: 'error-text', value: interruptedMessage('charge_card') } }),
    ]);
    const events = await listAuditEvents(database.db, { runId: result.runId });
    // `started` was on record with the run before the call ran: the trail shows it may have run.
    expect(events.map((e) => `${e.event}:${e.toolName}`)).toEqual(['started:charge_card', 'interrupted:charge_card']);
    expect(await rowOf(result.runId)).toBeUndefined();
  });

  it('a quick run writes no record; a run on record that finishes or pauses leaves no claim behind', async () => {
    const quick = agentWith({ model: scriptedModel([{ text: 'quick answer' }]), storage: database, recordRunAfterMs: 60_000 });
    const answered = await quick.generate('hello');
    expect(answered.text).toBe('quick answer');
    expect(await rowOf(answered.runId)).toBeUndefined();

    // On record at once (0 ms) while the model thinks; its end removes the record.
    let release!: () => void;
    const thinking = modelStuckOnFirstCall([{ text: 'recorded answer' }], new Promise<void>((r) => (release = r)));
    const recorded = agentWith({ model: thinking, storage: database, recordRunAfterMs: 0 });
    const stream = await recorded.stream('hello again');
    expect(await eventually(() => rowOf(stream.runId))).toEqual({ status: 'running', claimed: true });
    release();
    expect((await stream.result).text).toBe('recorded answer');
    expect(await rowOf(stream.runId)).toBeUndefined();

    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'p1' } }] }, { text: 'deleted p1' }]);
    const pausing = agentWith({ model, tools: { delete_record: tool }, storage: database, recordRunAfterMs: 0, runLeaseMs: 1 });
    const paused = await pausing.generate('delete p1');
    expect(paused.finishReason).toBe('suspended');
    expect(await rowOf(paused.runId)).toEqual({ status: 'suspended', claimed: false });
    // Paused is not stale: a sweep takes nothing, and the approval goes through as always.
    await sleep(20);
    expect(await pausing.recoverStaleRuns()).toEqual([]);
    expect((await pausing.approveToolCallGenerate({ runId: paused.runId })).text).toBe('deleted p1');
    expect(calls).toEqual([{ id: 'p1' }]);
    expect(await rowOf(paused.runId)).toBeUndefined();
  });

  it('a run that fails in its process is not taken over and failed again by every sweep', async () => {
    const fresh = agentWith({ model: modelThatFailsAfter([]), storage: database, recordRunAfterMs: 0, runLeaseMs: 1 });
    const failed = await fresh.stream('hello');
    expect((await failed.result).finishReason).toBe('error');
    await sleep(20);
    expect(await fresh.recoverStaleRuns()).toEqual([]);
    expect(await rowOf(failed.runId)).toBeUndefined();

    // The same for a run continued after an approval whose model then fails.
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const flaky = modelThatFailsAfter([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'f1' } }] }]);
    const continued = agentWith({ model: flaky, tools: { delete_record: tool }, storage: database, runLeaseMs: 1 });
    const paused = await continued.generate('delete f1');
    const after = await continued.approveToolCallGenerate({ runId: paused.runId });
    expect(after.finishReason).toBe('error');
    expect(calls).toEqual([{ id: 'f1' }]);
    await sleep(20);
    expect(await continued.recoverStaleRuns()).toEqual([]);
    expect(flaky.calls()).toBe(2);
    expect(await rowOf(paused.runId)).toBeUndefined();
  });
});
