import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/db/audit.js';
import { findDecisionTarget, recordApprovalVote, cancelPendingRuns } from '../../src/db/pending-actions.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { lastToolResults, scriptedModel } from '../helpers/scripted-model.js';

describeBackends('"cancel" in a thread against decisions landing at the same moment, on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** A run paused on `ids.length` approval requests, one per call of its step. */
  async function waitingRun(ids: string[]) {
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([{ toolCalls: ids.map((id) => ({ toolName: 'delete_record', args: { id } })) }]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    const { runId } = await agent.generate('delete them');
    const rows = await sql<{ id: number; tool_call_id: string; status: string }>`
      SELECT id, tool_call_id, status FROM pending_actions WHERE root_run_id = ${runId} ORDER BY id`.execute(database.db);
    return { runId, actions: rows.rows };
  }
  const statuses = async (runId: string) =>
    (await sql<{ status: string }>`SELECT status FROM pending_actions WHERE root_run_id = ${runId} ORDER BY id`.execute(database.db)).rows.map((r) => r.status);
  const snapshot = async (runId: string) =>
    (await sql<{ status: string }>`SELECT status FROM run_snapshots WHERE run_id = ${runId}`.execute(database.db)).rows[0]?.status;
  const cancel = (runId: string) => cancelPendingRuns(database.db, [runId], 'UREQ', 'Cancelled in Slack.');
  const approve = async (runId: string, toolCallId: string) => {
    const action = (await findDecisionTarget(database.db, runId, toolCallId, ['approval']))!;
    return recordApprovalVote(database.db, { actionId: action.id, actor: 'UBOSS', policyVersion: action.policy_version!, grantTtlMs: 60_000 });
  };

  it('every pending request of the run is cancelled in one go, its snapshot dropped, each with an audit event', async () => {
    const { runId, actions } = await waitingRun(['c1', 'c2']);
    expect(await cancel(runId)).toEqual(actions.map((a) => a.id));
    expect(await statuses(runId)).toEqual(['cancelled', 'cancelled']);
    expect(await snapshot(runId)).toBeUndefined();
    const events = await listAuditEvents(database.db, { runId });
    expect(events.filter((e) => e.event === 'cancelled').map((e) => e.actor)).toEqual(['UREQ', 'UREQ']);
  });

  it('an approval that leased the run just before: nothing is cancelled and the run goes on', async () => {
    const { runId, actions } = await waitingRun(['c3']);
    expect((await approve(runId, actions[0]!.tool_call_id))?.leased).toBeDefined();
    expect(await cancel(runId)).toEqual([]);
    expect(await statuses(runId)).toEqual(['approved']);
    expect(await snapshot(runId)).toBe('running');
  });

  it('an approval of one call while another is open: the rest is cancelled and the run dropped, so the approved call never runs', async () => {
    const { runId, actions } = await waitingRun(['c4', 'c5']);
    expect((await approve(runId, actions[1]!.tool_call_id))?.leased).toBeUndefined();
    expect(await cancel(runId)).toEqual([actions[0]!.id]);
    expect(await statuses(runId)).toEqual(['cancelled', 'approved']);
    expect(await snapshot(runId)).toBeUndefined();
  });

  it('with memory, the thread remembers the cancelled calls, by whom and why, so the next run is told and no call is left unanswered', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      { text: 'Deleting both.', toolCalls: [{ toolName: 'delete_record', args: { id: 'm1' } }, { toolName: 'delete_record', args: { id: 'm2' } }] },
      { text: 'Understood: nothing was deleted.' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, memory: true });
    const thread = { threadId: 'cancel-memory', resourceId: 'team' };
    const first = await agent.generate('delete m1 and m2', thread);
    expect(first.pending).toHaveLength(2);
    expect(await agent.cancelRuns([first.runId], 'UREQ', 'Cancelled in Slack.')).toHaveLength(2);
    const stored = await sql<{ message: { role: string; content: Array<{ type: string; output?: unknown }> } }>`
      SELECT message FROM thread_messages WHERE thread_id = 'cancel-memory' ORDER BY id`.execute(database.db);
    expect(stored.rows.map((r) => r.message.role)).toEqual(['user', 'assistant', 'tool']);
    const cancelled = { type: 'execution-denied', reason: 'Tool call cancelled by UREQ; delete_record did not run: Cancelled in Slack.' };
    expect(stored.rows[2]!.message.content.map((p) => p.output)).toEqual([cancelled, cancelled]);

    // The next run in the thread is told: its prompt holds both calls, each answered as cancelled.
    const next = await agent.generate('thanks', thread);
    expect(next.text).toBe('Understood: nothing was deleted.');
    expect(lastToolResults(model).map((r) => (r as { output: unknown }).output)).toEqual([cancelled, cancelled]);
    expect(calls).toHaveLength(0);
  });

  it('a run a decision leased first leaves nothing in memory: it goes on, and its own end is what the thread remembers', async () => {
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'm3' } }] }, { text: 'Deleted m3.' }]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, memory: true });
    const thread = { threadId: 'cancel-memory-raced', resourceId: 'team' };
    const first = await agent.generate('delete m3', thread);
    expect((await approve(first.runId, first.pending[0]!.toolCallId))?.leased).toBeDefined();
    expect(await agent.cancelRuns([first.runId], 'UREQ', 'Cancelled in Slack.')).toEqual([]);
    const stored = await sql<{ n: number }>`SELECT count(*)::int AS n FROM thread_messages WHERE thread_id = 'cancel-memory-raced'`.execute(database.db);
    expect(stored.rows[0]!.n).toBe(0);
  });
});
