import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.js';
import type { ExpiredRequest, RecoveredRun } from '../../src/agent/api-types.js';
import { takeOverWhileFull, takeWhileFull } from '../../src/agent/sweeps.js';
import { findDecisionTarget, recordApprovalVote } from '../../src/db/pending-actions.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { backlogModel } from '../helpers/backlog-model.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** A stream ends a moment before its continuation gives its slot back. */
const allSlotsFree = (agent: Agent) => until(() => agent.runtime.runSlots.free === agent.runtime.runSlots.limit, 'every slot free');

describeBackends('a backlog of expired requests and stopped runs, on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** `count` runs of `agent`, each suspended on one approval request; `prefix` keeps records of tests apart. */
  async function suspendedRuns(agent: Agent, prefix: string, count: number): Promise<string[]> {
    const runIds: string[] = [];
    for (let i = 0; i < count; i++) runIds.push((await agent.generate(`delete ${prefix}${i}`)).runId);
    return runIds;
  }
  const makeDue = (runIds: string[]) =>
    sql`UPDATE pending_actions SET expires_at = now() - interval '1 minute' WHERE run_id = ANY(${runIds}::text[]) AND status = 'pending'`.execute(database.db);
  /** What a process leaves when it stops right after its approving vote: the run leased, nothing run; the lease made stale. */
  async function approvedByAStoppedProcess(runIds: string[]): Promise<void> {
    for (const runId of runIds) {
      const action = (await findDecisionTarget(database.db, runId, undefined, ['approval']))!;
      await recordApprovalVote(database.db, { actionId: action.id, actor: 'U_BOSS', policyVersion: action.policy_version!, grantTtlMs: 60_000 });
    }
    await sql`UPDATE run_snapshots SET claimed_at = now() - interval '1 hour' WHERE run_id = ANY(${runIds}::text[])`.execute(database.db);
  }
  const expiredEvents = async (runIds: string[]) =>
    (
      await sql<{ run_id: string; n: number }>`
        SELECT run_id, count(*)::int AS n FROM audit_events WHERE event = 'expired' AND run_id = ANY(${runIds}::text[]) GROUP BY run_id
      `.execute(database.db)
    ).rows;
  const finish = (streams: Array<{ stream?: { result: Promise<unknown> } }>) => Promise.all(streams.map((s) => s.stream?.result));

  it('sweeps batch after batch while they come back full: 30 due requests expire in one sweep, each run continues once', async () => {
    const m = backlogModel();
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({ id: 'batches', model: m.model, tools: { delete_record: tool }, storage: database });
    const runIds = await suspendedRuns(agent, 'b', 30);
    await makeDue(runIds);

    const expired: ExpiredRequest[] = [];
    const batches: number[] = [];
    const swept = await takeWhileFull(
      (limit) => agent.sweepExpired(limit),
      (batch) => {
        batches.push(batch.length);
        expired.push(...batch);
      },
      { size: 10 },
    );
    expect(swept).toEqual({ taken: 30, more: false });
    expect(batches).toEqual([10, 10, 10]);
    await finish(expired);
    expect((await expiredEvents(runIds)).map((r) => r.n)).toEqual(Array(30).fill(1));
    expect([...m.continued.values()]).toEqual(Array(30).fill(1));
    expect(await agent.sweepExpired()).toEqual([]);
  });

  it('a sweep out of time stops after a full batch and says more is waiting', async () => {
    const m = backlogModel();
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({ id: 'budget', model: m.model, tools: { delete_record: tool }, storage: database });
    const runIds = await suspendedRuns(agent, 't', 30);
    await makeDue(runIds);
    const expired: ExpiredRequest[] = [];
    const first = await takeWhileFull((limit) => agent.sweepExpired(limit), (batch) => expired.push(...batch), { size: 10, budgetMs: 0 });
    expect(first).toEqual({ taken: 10, more: true });
    const rest = await takeWhileFull((limit) => agent.sweepExpired(limit), (batch) => expired.push(...batch), { size: 10 });
    expect(rest).toEqual({ taken: 20, more: false });
    await finish(expired);
    expect(new Set(expired.map((e) => e.action.id)).size).toBe(30);
  });

  it('continuations wait for a run slot: never more than maxConcurrentRuns at once, decisions ahead of the backlog, fresh runs never held', async () => {
    const m = backlogModel();
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({ id: 'slots', model: m.model, tools: { delete_record: tool }, storage: database, maxConcurrentRuns: 3 });
    const backlog = await suspendedRuns(agent, 's', 12);
    const [decided] = await suspendedRuns(agent, 'decided', 1);
    await makeDue(backlog);
    const release = m.hold();
    const expired = await agent.sweepExpired();
    expect(expired).toHaveLength(12);
    await until(() => m.inFlight === 3, 'three continuations at work');
    expect(agent.runtime.runSlots.waiting).toBe(9);

    // A decision made now goes ahead of the nine still waiting.
    const approved = await agent.approveToolCall({ runId: decided! });
    // A fresh run is not on record yet, so it never waits for a slot (it would be lost at a stop).
    const fresh = await agent.stream('delete fresh0');
    await until(async () => (await fresh.finishReason) === 'suspended', 'the fresh run to pause');
    expect(m.inFlight).toBe(3);

    release();
    await finish([...expired, { stream: approved }]);
    expect(m.maxInFlight).toBe(3);
    expect(m.order.slice(0, 4)).toContain('decided0');
    expect(m.order.indexOf('decided0')).toBeLessThan(4);
    expect([...m.continued.values()]).toEqual(Array(13).fill(1));
    expect(calls).toEqual([{ id: 'decided0' }]);
    await until(() => agent.runtime.runSlots.active === 0, 'every slot given back');
  });

  it('takes over at most maxConcurrentRuns runs at a time, which keep their leases while they wait; the backlog waiting here is another instance\'s to take', async () => {
    const m = backlogModel();
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const config = { id: 'takeover', model: m.model, tools: { delete_record: tool }, storage: database, runLeaseMs: 150 };
    const agent = agentWith({ ...config, maxConcurrentRuns: 4 });
    const other = agentWith(config);
    const backlog = await suspendedRuns(agent, 'q', 8);
    const stopped = await suspendedRuns(agent, 'stopped', 6);
    await approvedByAStoppedProcess(stopped);
    await makeDue(backlog);
    const release = m.hold();
    const expired = await agent.sweepExpired();
    await until(() => m.inFlight === 4, 'four continuations at work');

    const taken = await agent.recoverStaleRuns();
    expect(taken).toHaveLength(4);
    expect(await agent.recoverStaleRuns()).toEqual([]);
    // Several leases long. The runs taken over wait here with their leases renewed; the expired
    // requests' runs waiting here are on record as decided and not leased, so another instance
    // may take them, as it takes the stopped runs this one had no room for.
    await sleep(600);
    const stolen = await other.recoverStaleRuns();
    const runIdOf = new Map<string, string>([...backlog.map((id, i) => [`q${i}`, id] as const), ...stopped.map((id, i) => [`stopped${i}`, id] as const)]);
    const atWork = m.order.slice(0, 4).map((record) => runIdOf.get(record)!);
    const mine = new Set([...taken.map((r) => r.runId), ...atWork]);
    expect(stolen).toHaveLength(6);
    expect(stolen.filter((r) => mine.has(r.runId))).toEqual([]);

    release();
    await finish([...expired, ...taken, ...stolen]);
    // Each run went on once, here or there; the approved calls were interrupted, not run.
    expect(m.continued.size).toBe(14);
    expect([...m.continued.values()].every((n) => n === 1)).toBe(true);
    expect(calls).toEqual([]);
    await allSlotsFree(agent);
    expect(await agent.recoverStaleRuns()).toEqual([]);
  });

  it('taking over batch after batch says when it ran out of room with runs left, so the sweep comes back soon', async () => {
    const m = backlogModel();
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({ id: 'room', model: m.model, tools: { delete_record: tool }, storage: database, maxConcurrentRuns: 2 });
    const stopped = await suspendedRuns(agent, 'room', 5);
    await approvedByAStoppedProcess(stopped);
    const release = m.hold();
    const taken: RecoveredRun[] = [];
    expect(await takeOverWhileFull(agent, (batch) => taken.push(...batch))).toEqual({ taken: 2, more: true });
    // Still no room: nothing taken, and the runs are still likely there.
    expect(await takeOverWhileFull(agent, (batch) => taken.push(...batch))).toEqual({ taken: 0, more: true });
    release();
    await finish(taken);
    await allSlotsFree(agent);
    expect(await takeOverWhileFull(agent, (batch) => taken.push(...batch))).toEqual({ taken: 2, more: true });
    await finish(taken);
    await allSlotsFree(agent);
    expect(await takeOverWhileFull(agent, (batch) => taken.push(...batch))).toEqual({ taken: 1, more: false });
    await finish(taken);
    expect(new Set(taken.map((r) => r.runId))).toEqual(new Set(stopped));
  });

  it('a decided run waiting for a slot keeps its lease: no other instance takes it over meanwhile', async () => {
    const m = backlogModel();
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    // Renewed every 166 ms: 500 ms leaves room for an event loop held up on a busy machine.
    const config = { id: 'held', model: m.model, tools: { delete_record: tool }, storage: database, runLeaseMs: 500 };
    const agent = agentWith({ ...config, maxConcurrentRuns: 1 });
    const other = agentWith(config);
    const [busy, waiting] = await suspendedRuns(agent, 'h', 2);
    await makeDue([busy!]);
    const release = m.hold();
    const expired = await agent.sweepExpired();
    await until(() => m.inFlight === 1, 'the slot taken');
    const approved = await agent.approveToolCall({ runId: waiting! });
    // Several leases long: a lease nobody renewed would be stale by now.
    await sleep(1600);
    expect(await other.recoverStaleRuns()).toEqual([]);
    release();
    await finish([...expired, { stream: approved }]);
    expect(calls).toEqual([{ id: 'h1' }]);
    expect(m.continued.get('h1')).toBe(1);
  });

  it('two instances sweeping one backlog: every request expired once, every run continued once', async () => {
    const m = backlogModel();
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const other = await database.reopen();
    try {
      const a = agentWith({ id: 'race', model: m.model, tools: { delete_record: tool }, storage: database, maxConcurrentRuns: 8 });
      const b = agentWith({ id: 'race', model: m.model, tools: { delete_record: tool }, storage: other, maxConcurrentRuns: 8 });
      const due = await suspendedRuns(a, 'r', 100);
      const stopped = await suspendedRuns(a, 'x', 20);
      await approvedByAStoppedProcess(stopped);
      await makeDue(due);

      const sweep = async (agent: Agent) => {
        const expired: ExpiredRequest[] = [];
        const recovered: RecoveredRun[] = [];
        await takeWhileFull((limit) => agent.sweepExpired(limit), (batch) => expired.push(...batch), { size: 10 });
        await finish(expired);
        // Runs taken over start at once, so each instance takes what its slots allow, batch after batch.
        for (;;) {
          const batch = await agent.recoverStaleRuns(5);
          if (batch.length === 0) break;
          recovered.push(...batch);
          await finish(batch);
          await allSlotsFree(agent);
        }
        return { expired, recovered };
      };
      const [fromA, fromB] = await Promise.all([sweep(a), sweep(b)]);

      const expiredIds = [...fromA.expired, ...fromB.expired].map((e) => e.action.id);
      expect(expiredIds).toHaveLength(100);
      expect(new Set(expiredIds).size).toBe(100);
      expect((await expiredEvents(due)).map((r) => r.n)).toEqual(Array(100).fill(1));
      const recoveredIds = [...fromA.recovered, ...fromB.recovered].map((r) => r.runId);
      expect(recoveredIds.sort()).toEqual([...stopped].sort());
      // Each run's model was asked to go on exactly once, whichever instance did it; the approved calls were interrupted, not run.
      expect(m.continued.size).toBe(120);
      expect([...m.continued.values()].every((n) => n === 1)).toBe(true);
      expect(calls).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
