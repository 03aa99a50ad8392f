import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { runRecordCount } from '../helpers/run-record-count.js';
import { lastToolResults, modelThatFailsAfter, scriptedModel } from '../helpers/scripted-model.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const told = 'Delegation to agent-billing failed: model mock-provider/mock-model-id failed: the provider is down';

describeBackends('a sub-agent that fails, on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('is a failed call for its supervisor, which is told why and answers', async () => {
    const billing = new Agent({ id: 'billing', model: modelThatFailsAfter([]) });
    const topModel = scriptedModel([{ toolCalls: [{ toolName: 'agent-billing', args: { prompt: 'refund o-1' } }] }, { text: 'Billing is unavailable right now.' }]);
    const top = new Agent({ id: 'ops', model: topModel, agents: { billing }, storage: database });
    const result = await top.generate('refund o-1');
    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('Billing is unavailable right now.');
    expect(lastToolResults(topModel)).toEqual([expect.objectContaining({ toolName: 'agent-billing', output: { type: 'error-text', value: told } })]);
  });

  it('after an approval, its failure goes to the supervisor once: the tool ran once, nothing is left for a sweep to retry', async () => {
    const { tool: refund, calls } = countingTool('issue_refund', { requireApproval: true });
    // Asks for the refund, then fails on the call that would report it.
    const billingModel = modelThatFailsAfter([{ toolCalls: [{ toolName: 'issue_refund', args: { id: 'o-2' } }] }]);
    const billing = new Agent({ id: 'billing', model: billingModel, tools: { issue_refund: refund } });
    const topModel = scriptedModel([
      { toolCalls: [{ toolName: 'agent-billing', args: { prompt: 'refund o-2' } }] },
      { text: 'The refund may have gone through; billing stopped before it confirmed.' },
    ]);
    const top = new Agent({ id: 'ops', model: topModel, agents: { billing }, storage: database, runLeaseMs: 1 });
    const paused = await top.generate('refund o-2');
    expect(paused.suspendPayload).toMatchObject({ toolName: 'agent-billing', innerToolName: 'issue_refund', path: ['ops', 'billing'] });

    const after = await top.approveToolCallGenerate({ runId: paused.runId });
    expect(after.finishReason).toBe('stop');
    expect(after.text).toBe('The refund may have gone through; billing stopped before it confirmed.');
    expect(calls).toEqual([{ id: 'o-2' }]);
    expect(lastToolResults(topModel)).toEqual([expect.objectContaining({ toolName: 'agent-billing', output: { type: 'error-text', value: told } })]);
    expect(await runRecordCount(database, paused.runId)).toBe(0);
    const delegation = await sql<{ status: string; reason: string }>`
      SELECT status, reason FROM pending_actions WHERE root_run_id = ${paused.runId} AND kind = 'delegation'`.execute(database.db);
    expect(delegation.rows).toEqual([{ status: 'failed', reason: 'model mock-provider/mock-model-id failed: the provider is down' }]);

    // With a 1 ms lease anything left running would be stale at once: a sweep finds nothing.
    await sleep(20);
    expect(await top.recoverStaleRuns()).toEqual([]);
    expect(billingModel.calls()).toBe(2);
  });
});
