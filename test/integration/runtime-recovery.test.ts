import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { once } from 'node:events';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listAuditEvents } from '../../src/db/audit.js';
import { findDecisionTarget, closeAction, recordApprovalVote, recordResume } from '../../src/db/pending-actions.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { takeRunLease } from '../../src/db/run-snapshots.js';
import { interruptedMessage } from '../../src/agent/approved-call.js';
import { LeaseLostError } from '../../src/agent/errors.js';
import type { RecoveredRun } from '../../src/agent/api-types.js';
import type { RuntimeDeps, Snapshot } from '../../src/agent/run-model.js';
import { createTool } from '../../src/agent/tool.js';
import { holdLease } from '../../src/agent/run-lease.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import { createLogger } from '../../src/logger.js';
import { z } from 'zod';
import { agentWith, countingTool } from '../helpers/agents.js';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends, needing } from '../helpers/needs.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeBackends('runs whose process stopped mid-way, on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** What a process leaves behind when it stops right after its approving vote committed: leased, grant spent, nothing run. */
  async function approveWithoutContinuing(runId: string, toolCallId?: string) {
    const action = (await findDecisionTarget(database.db, runId, toolCallId, ['approval']))!;
    const written = await recordApprovalVote(database.db, { actionId: action.id, actor: 'U_BOSS', policyVersion: action.policy_version!, grantTtlMs: 60_000 });
    expect(written?.row.status).toBe('approved');
    return written!;
  }
  const age = (runId: string) => sql`UPDATE run_snapshots SET claimed_at = now() - interval '1 hour' WHERE run_id = ${runId}`.execute(database.db);

  it('a leased run nobody renews is taken over once; its approved call is reported interrupted, never run again', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'r1' } }] }, { text: 'told the user' }]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, runLeaseMs: 60_000 });
    const first = await agent.generate('delete r1');
    expect((await approveWithoutContinuing(first.runId)).leased).toBeDefined();

    // Within the lease it belongs to the (stopped) process that leased it.
    expect(await agent.recoverStaleRuns()).toEqual([]);
    await age(first.runId);
    const recovered = await agent.recoverStaleRuns();
    expect(recovered.map((r) => r.runId)).toEqual([first.runId]);
    expect(await agent.recoverStaleRuns()).toEqual([]);

    const result = await recovered[0]!.stream.result;
    expect(result.text).toBe('told the user');
    expect(calls).toHaveLength(0);
    expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'error-text', value: interruptedMessage('delete_record') } });
    // The grant was spent, on record, before the stopped process could have run the call.
    const events = (await listAuditEvents(database.db, { runId: first.runId })).map((e) => e.event);
    expect(events).toEqual(['requested', 'approved', 'consumed', 'interrupted']);
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots WHERE run_id = ${first.runId}`.execute(database.db);
    expect(left.rows[0]!.n).toBe(0);
  });

  it('after a takeover, a call whose grant was still open runs; only the one whose grant was spent is interrupted', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'a' } }, { toolName: 'delete_record', args: { id: 'b' } }] },
      { text: 'done' },
    ]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database });
    const first = await agent.generate('delete a and b');
    const [a, b] = first.pending.map((p) => p.toolCallId);
    expect((await approveWithoutContinuing(first.runId, a)).leased).toBeUndefined();
    expect((await approveWithoutContinuing(first.runId, b)).leased?.spentGrant).toBeDefined();
    await age(first.runId);
    const [recovered] = await agent.recoverStaleRuns();
    await recovered!.stream.result;
    expect(calls).toEqual([{ id: 'a' }]);
    const outputs = lastToolResults(model).map((r) => (r as { output: { type: string } }).output.type);
    expect(outputs).toEqual(['json', 'error-text']);
  });

  it('a process that stalls past its lease and wakes after a takeover stops there: one answer, memory written once', async () => {
    const thread = { threadId: `stall-${backend}`, resourceId: 'T1' };
    let executions = 0;
    let takeover: Promise<unknown> | undefined;
    const tool = createTool({
      id: 'delete_record',
      description: 'deletes a record',
      inputSchema: z.object({ id: z.string() }),
      requireApproval: true,
      execute: async () => {
        executions += 1;
        // While this process is "frozen" in here, its lease runs out and another instance takes the run.
        let recovered: RecoveredRun | undefined;
        while (!(recovered = (await taker.recoverStaleRuns())[0])) await sleep(5);
        takeover = recovered.stream.result;
        await takeover;
        await sleep(250);
        return { deleted: true };
      },
    });
    const stalledModel = scriptedModel([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'st1' } }] },
      { text: 'answered by the stalled instance' },
    ]);
    const stalled = agentWith({ model: stalledModel, tools: { delete_record: tool }, storage: database, memory: true, runLeaseMs: 200 });
    // Another instance of the same bot; its 1 ms lease makes the stalled instance's lease stale at once.
    const taker = agentWith({
      model: scriptedModel([{ text: 'answered by the instance that took over' }]),
      tools: { delete_record: tool },
      storage: database,
      memory: true,
      runLeaseMs: 1,
    });
    const first = await stalled.generate('delete st1', thread);
    const stalledRunId = first.runId;

    const result = await stalled.approveToolCallGenerate({ runId: stalledRunId });
    expect(result.finishReason).toBe('error');
    expect(result.error).toBeInstanceOf(LeaseLostError);
    expect(result.text).toBe('');
    expect((await takeover) as { text: string }).toMatchObject({ text: 'answered by the instance that took over' });
    // The stalled process ran the tool it was in, and nothing after it: no second model call, no second answer.
    expect(executions).toBe(1);
    expect(stalledModel.doStreamCalls).toHaveLength(1);
    const memory = await sql<{ text: string }>`
      SELECT message->'content'->0->>'text' AS text FROM thread_messages
      WHERE thread_id = ${thread.threadId} AND message->>'role' = 'assistant' ORDER BY id`.execute(database.db);
    expect(memory.rows.map((r) => r.text).filter((t) => t?.startsWith('answered'))).toEqual(['answered by the instance that took over']);
    const events = (await listAuditEvents(database.db, { runId: stalledRunId })).map((e) => e.event);
    expect(events.filter((e) => e === 'interrupted')).toHaveLength(1);
    expect(events.filter((e) => e === 'executed')).toHaveLength(1);
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots WHERE run_id = ${stalledRunId}`.execute(database.db);
    expect(left.rows[0]!.n).toBe(0);
  });

  it('a tool without approval that the stopped process had started is reported interrupted after a takeover, not run again', async () => {
    const executions = { delete_record: 0, charge_card: 0 };
    let takeover: Promise<unknown> | undefined;
    const deleteRecord = createTool({
      id: 'delete_record',
      description: 'deletes a record',
      inputSchema: z.object({ id: z.string() }),
      requireApproval: true,
      execute: async () => {
        executions.delete_record += 1;
        return { deleted: true };
      },
    });
    const chargeCard = createTool({
      id: 'charge_card',
      description: 'charges a card, with nobody to approve it',
      inputSchema: z.object({ id: z.string() }),
      execute: async () => {
        executions.charge_card += 1;
        if (executions.charge_card === 1) {
          // The first process "freezes" in here; another instance takes the run over meanwhile.
          let recovered: RecoveredRun | undefined;
          while (!(recovered = (await taker.recoverStaleRuns())[0])) await sleep(5);
          takeover = recovered.stream.result;
          await takeover;
          // Frozen past half its lease, as a real stall is: its next check asks the database.
          await sleep(250);
        }
        return { charged: true };
      },
    });
    // Decides from what the prompt shows, as a real model would: after the deletion, charge; after the charge, answer.
    const decide = (options: { prompt: Array<{ role: string; content: unknown }> }): ScriptStep => {
      const results = options.prompt.flatMap((m) => (m.role === 'tool' ? (m.content as Array<{ toolName: string }>) : []));
      if (results.some((r) => r.toolName === 'charge_card')) return { text: 'deleted and charged' };
      if (results.some((r) => r.toolName === 'delete_record')) return { toolCalls: [{ toolName: 'charge_card', args: { id: 'c1' } }] };
      return { toolCalls: [{ toolName: 'delete_record', args: { id: 'd1' } }] };
    };
    const tools = { delete_record: deleteRecord, charge_card: chargeCard };
    const stalled = agentWith({ model: scriptedModel([decide]), tools, storage: database, runLeaseMs: 200 });
    const takerModel = scriptedModel([decide]);
    const taker = agentWith({ model: takerModel, tools, storage: database, runLeaseMs: 1 });

    const first = await stalled.generate('delete d1, then charge c1');
    const result = await stalled.approveToolCallGenerate({ runId: first.runId });
    expect(result.error).toBeInstanceOf(LeaseLostError);
    expect((await takeover) as { text: string }).toMatchObject({ text: 'deleted and charged' });

    expect(executions).toEqual({ delete_record: 1, charge_card: 1 });
    // What the instance that took over showed the model: the deletion as it happened, the charge as interrupted.
    expect(lastToolResults(takerModel)).toEqual([
      expect.objectContaining({ toolName: 'delete_record', output: { type: 'json', value: { deleted: true } } }),
      expect.objectContaining({ toolName: 'charge_card', output: { type: 'error-text', value: interruptedMessage('charge_card') } }),
    ]);
    const events = await listAuditEvents(database.db, { runId: first.runId });
    expect(events.filter((e) => e.event === 'interrupted').map((e) => e.toolName)).toEqual(['charge_card']);
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots WHERE run_id = ${first.runId}`.execute(database.db);
    expect(left.rows[0]!.n).toBe(0);
  });

  it('after a takeover, a request superseded by a policy that no longer asks for approval is reported interrupted, not run', async () => {
    const { tool, calls } = countingTool('refund');
    const model = scriptedModel([{ toolCalls: [{ toolName: 'refund', args: { id: 'o-9' } }] }, { text: 'told the user' }]);
    const strict = agentWith({ model, tools: { refund: tool }, storage: database, policy: definePolicy({ tools: { refund: { requireApproval: true } } }) });
    const first = await strict.generate('refund o-9');
    const action = (await findDecisionTarget(database.db, first.runId, undefined, ['approval']))!;
    // What a process leaves behind when it stops right after superseding the request and leasing the run.
    expect(await closeAction(database.db, { actionId: action.id, status: 'superseded', reason: 'policy changed' })).toBeDefined();
    expect(await takeRunLease(database.db, first.runId)).toBeDefined();
    await age(first.runId);
    const relaxed = agentWith({ model, tools: { refund: tool }, storage: database, policy: definePolicy({}) });
    const [recovered] = await relaxed.recoverStaleRuns();
    expect((await recovered!.stream.result).text).toBe('told the user');
    expect(calls).toHaveLength(0);
    expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'error-text', value: interruptedMessage('refund') } });
  });

  it('a slow tool keeps its lease: a sweep during a long execute takes nothing, and the call runs once', async () => {
    let executions = 0;
    const slow = createTool({
      id: 'slow_job',
      description: 'takes a while',
      inputSchema: z.object({ id: z.string() }),
      requireApproval: true,
      execute: async () => {
        executions += 1;
        await sleep(1500);
        return { ok: true };
      },
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'slow_job', args: { id: 's1' } }] }, { text: 'slow job done' }]);
    const agent = agentWith({ model, tools: { slow_job: slow }, storage: database, runLeaseMs: 600 });
    const first = await agent.generate('run the slow job');
    const done = agent.approveToolCallGenerate({ runId: first.runId });
    const sweeps: unknown[] = [];
    // The lease is renewed every 200 ms; 600 ms leaves room for an event loop held up on a busy
    // machine, and the execute lasts more than two leases, so only renewals keep it.
    for (let i = 0; i < 6; i += 1) {
      await sleep(250);
      sweeps.push(...(await agent.recoverStaleRuns()));
    }
    expect((await done).text).toBe('slow job done');
    expect(sweeps).toEqual([]);
    expect(executions).toBe(1);
  });

  it('a run whose last request was decided by a process that stopped before continuing it is continued by the sweep, once', async () => {
    const ago = (runId: string) => Promise.all([
      sql`UPDATE run_snapshots SET suspended_at = now() - interval '1 hour' WHERE run_id = ${runId}`.execute(database.db),
      sql`UPDATE pending_actions SET decided_at = now() - interval '1 hour', created_at = now() - interval '1 hour' WHERE run_id = ${runId}`.execute(database.db),
    ]);
    // An expiry written, then the process stopped.
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'x1' } }] }, { text: 'it expired' }]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, runLeaseMs: 60_000 });
    const first = await agent.generate('delete x1');
    const action = (await findDecisionTarget(database.db, first.runId, undefined, ['approval']))!;
    await sql`UPDATE pending_actions SET expires_at = now() - interval '1 second' WHERE id = ${action.id}`.execute(database.db);
    expect(await closeAction(database.db, { actionId: action.id, status: 'expired' })).toBeDefined();
    // Within the lease the deciding process may still be about to continue it.
    expect(await agent.recoverStaleRuns()).toEqual([]);
    await ago(first.runId);
    const [continued, ...more] = await agent.recoverStaleRuns();
    expect(more).toEqual([]);
    expect(continued!.runId).toBe(first.runId);
    expect((await continued!.stream.result).text).toBe('it expired');
    expect(calls).toHaveLength(0);
    expect(await agent.recoverStaleRuns()).toEqual([]);

    // An approval whose sibling was still open, then that sibling's answer, then the stop: the
    // approved call runs once on its unspent grant, the answer reaches its tool.
    const approvals = countingTool('refund', { requireApproval: true });
    const script = scriptedModel([
      { toolCalls: [{ toolName: 'refund', args: { id: 'x2' } }, { toolName: 'ask_user', args: { question: 'Why?' } }] },
      { text: 'refunded' },
    ]);
    const two = agentWith({ model: script, tools: { refund: approvals.tool, ask_user: askUserTool }, storage: database, runLeaseMs: 60_000 });
    const second = await two.generate('refund x2');
    const vote = await approveWithoutContinuing(second.runId, (await findDecisionTarget(database.db, second.runId, undefined, ['approval']))!.tool_call_id);
    expect(vote.leased).toBeUndefined();
    const question = (await findDecisionTarget(database.db, second.runId, undefined, ['suspension']))!;
    expect(await recordResume(database.db, { actionId: question.id, resumeData: 'customer asked', actor: 'U1' })).toBeDefined();
    await ago(second.runId);
    const [taken] = await two.recoverStaleRuns();
    expect((await taken!.stream.result).text).toBe('refunded');
    expect(approvals.calls).toHaveLength(1);
    expect(lastToolResults(script).find((r) => 'toolName' in r && r.toolName === 'ask_user')).toMatchObject({ output: { value: { content: 'User answered: customer asked', isError: false } } });
    expect(await two.recoverStaleRuns()).toEqual([]);
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots WHERE run_id IN (${first.runId}, ${second.runId})`.execute(database.db);
    expect(left.rows[0]!.n).toBe(0);
  });

  it('a renewal that lands after the run\'s own final write is no takeover: no warning; a newer lease is one, warned once', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const deps = { db: database.db, logger, runLeaseMs: 30 } as RuntimeDeps;
    const warned = () => lines.filter((l) => l.includes('lease on the run lost'));
    const claimedRun = async (id: string) => {
      const { tool } = countingTool('delete_record', { requireApproval: true });
      const agent = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id } }] }]), tools: { delete_record: tool }, storage: database });
      const paused = await agent.generate(`delete ${id}`);
      await sql`UPDATE pending_actions SET status = 'declined' WHERE root_run_id = ${paused.runId}`.execute(database.db);
      const row = (await takeRunLease(database.db, paused.runId))!;
      return { runId: paused.runId, epoch: row.claim_epoch };
    };
    const claimedAt = async (runId: string) =>
      (await sql<{ at: string }>`SELECT claimed_at::text AS at FROM run_snapshots WHERE run_id = ${runId}`.execute(database.db)).rows[0]?.at;
    /** Waits until the lease held on `runId` has been renewed at least once. */
    const renewedOnce = async (runId: string) => {
      const taken = await claimedAt(runId);
      await vi.waitFor(async () => expect(await claimedAt(runId)).not.toBe(taken), { timeout: 10_000, interval: 10 });
    };

    // The run ended (its row deleted) while a renewal was on its way, and paused in the other case.
    for (const finalWrite of [
      (runId: string) => sql`DELETE FROM run_snapshots WHERE run_id = ${runId}`,
      (runId: string) => sql`UPDATE run_snapshots SET status = 'suspended' WHERE run_id = ${runId}`,
    ]) {
      const { runId, epoch } = await claimedRun(randomUUID().slice(0, 8));
      const hold = holdLease(deps, runId, epoch);
      await renewedOnce(runId);
      await finalWrite(runId).execute(database.db);
      // A renewal after the write has landed once the lease refuses to go on.
      await vi.waitFor(() => expect(Promise.resolve().then(() => hold.check())).rejects.toBeInstanceOf(LeaseLostError), { timeout: 10_000, interval: 10 });
      hold.release();
      expect(warned()).toEqual([]);
    }

    // Another process took the run over (a newer lease): that is worth a warning, and the run stops here.
    const { runId, epoch } = await claimedRun(randomUUID().slice(0, 8));
    const hold = holdLease(deps, runId, epoch);
    await sql`UPDATE run_snapshots SET claim_epoch = claim_epoch + 1 WHERE run_id = ${runId}`.execute(database.db);
    // The next renewal finds the newer lease.
    await vi.waitFor(() => expect(warned()).toHaveLength(1), { timeout: 10_000, interval: 10 });
    await expect(hold.check() ?? Promise.resolve()).rejects.toBeInstanceOf(LeaseLostError);
    hold.release();
    expect(warned()).toHaveLength(1);
  });
});

describe('a takeover committed while a renewal waits for the run\'s row (postgres)', needing('postgres'), () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('is a takeover: warned, and the run stops here; the run\'s own final write in its place is not', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    // A lease long enough that only the checkpoint below renews it.
    const deps = { db: database.db, logger, runLeaseMs: 600_000 } as RuntimeDeps;
    const warned = () => lines.filter((l) => l.includes('lease on the run lost: another process took it over'));
    const other = await database.reopen();
    try {
      for (const [change, warns] of [
        [(runId: string) => sql`UPDATE run_snapshots SET claim_epoch = claim_epoch + 1 WHERE run_id = ${runId}`, 1],
        [(runId: string) => sql`DELETE FROM run_snapshots WHERE run_id = ${runId}`, 0],
        [(runId: string) => sql`UPDATE run_snapshots SET status = 'suspended' WHERE run_id = ${runId}`, 0],
      ] as const) {
        lines.length = 0;
        const runId = randomUUID();
        await sql`INSERT INTO run_snapshots (run_id, root_run_id, agent_id, status, snapshot, claimed_at) VALUES (${runId}, ${runId}, 'ops', 'running', '{}'::jsonb, now())`.execute(database.db);
        const epoch = (await sql<{ epoch: number }>`SELECT claim_epoch AS epoch FROM run_snapshots WHERE run_id = ${runId}`.execute(database.db)).rows[0]!.epoch;
        const hold = holdLease(deps, runId, epoch);
        let checkpoint: Promise<void> | undefined;
        // The change is made by another connection; this process's write reaches the row while that change holds it.
        await other.db.transaction().execute(async (tx) => {
          const changer = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx)).rows[0]!.pid;
          await change(runId).execute(tx);
          // What the checkpoint would write does not matter: it finds the row changed and writes nothing.
          checkpoint = hold.checkpoint({} as Snapshot, []);
          checkpoint.catch(() => {});
          await vi.waitFor(async () => {
            const blocked = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${changer}::int = ANY(pg_blocking_pids(pid))`.execute(other.db);
            expect(blocked.rows[0]!.n).toBe(1);
          }, { timeout: 10_000, interval: 10 });
        });
        await expect(checkpoint).rejects.toBeInstanceOf(LeaseLostError);
        hold.release();
        expect(warned()).toHaveLength(warns);
      }
    } finally {
      await other.close();
    }
  });
});

describe('a bot process killed while a tool runs (postgres)', needing('postgres'), () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.close();
  });

  /**
   * Sweeps until a sweep takes something over: the killed child's lease, no longer renewed, goes
   * stale a lease after its last renewal; waiting on that, not on a fixed time past it.
   */
  async function takenOnceStale(agent: { recoverStaleRuns(): Promise<RecoveredRun[]> }): Promise<RecoveredRun[]> {
    let taken: RecoveredRun[] = [];
    await vi.waitFor(async () => {
      taken = await agent.recoverStaleRuns();
      expect(taken).not.toEqual([]);
    }, { timeout: 10_000, interval: 50 });
    return taken;
  }

  /** Starts the crash child in `env`'s mode and resolves with its output once `ready` appears in it. */
  async function crashChild(env: Record<string, string>, ready: RegExp): Promise<{ child: ReturnType<typeof spawn>; match: RegExpMatchArray }> {
    const child = spawn(process.execPath, [bundledFixture('test/helpers/crash-child.ts')], {
      env: { ...process.env, CHILD_SCHEMA: database.schema, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8');
    const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
      child.stdout!.on('data', (d: string) => {
        out += d;
        const m = out.match(ready);
        if (m) resolve(m);
      });
      child.once('exit', (code) => reject(new Error(`child exited (${code}) before ${ready}: ${out}`)));
    });
    return { child, match };
  }

  it('a run killed while its model was still answering is taken over after the lease and answered once', async () => {
    const thread = { threadId: 'crash-thinking', resourceId: 'T1' };
    const { child, match } = await crashChild({ CHILD_MODE: 'fresh', CHILD_PROMPT: 'status of abc-123?', CHILD_THREAD: thread.threadId }, /recorded (\S+)\n/);
    const runId = match[1]!;
    child.kill('SIGKILL');
    await once(child, 'exit');

    const model = scriptedModel([{ text: 'Record abc-123 is active.' }]);
    const agent = agentWith({ model, storage: database, memory: true, runLeaseMs: 1000 });
    // Renewed every third of the lease until the kill: still held, even on a loaded machine.
    expect(await agent.recoverStaleRuns()).toEqual([]);
    const recovered = await takenOnceStale(agent);
    expect(recovered.map((r) => r.runId)).toEqual([runId]);
    expect((await recovered[0]!.stream.result).text).toBe('Record abc-123 is active.');
    expect(JSON.stringify(model.doStreamCalls[0]!.prompt)).toContain('status of abc-123?');
    const memory = await sql<{ role: string }>`
      SELECT message->>'role' AS role FROM thread_messages WHERE thread_id = ${thread.threadId} ORDER BY id`.execute(database.db);
    expect(memory.rows.map((r) => r.role)).toEqual(['user', 'assistant']);
    expect(await agent.recoverStaleRuns()).toEqual([]);
  });

  it('another process takes the run over after the lease; the tool is not run a second time', async () => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'k1' } }] }, { text: 'after the crash' }]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, runLeaseMs: 1000 });
    const first = await agent.generate('delete k1', { threadId: 'crash-thread', resourceId: 'T1' });

    const { child } = await crashChild({ CHILD_RUN_ID: first.runId }, /executing k1\n/);
    child.kill('SIGKILL');
    await once(child, 'exit');

    // Renewed every third of the lease until the kill: still held, even on a loaded machine.
    expect(await agent.recoverStaleRuns()).toEqual([]);
    const recovered = await takenOnceStale(agent);
    expect(recovered.map((r) => r.runId)).toEqual([first.runId]);
    expect((await recovered[0]!.stream.result).text).toBe('after the crash');
    expect(calls).toHaveLength(0);
    expect(lastToolResults(model)[0]).toMatchObject({ output: { value: interruptedMessage('delete_record') } });
    // The killed process had started the call: the trail says so (consumed) before the takeover's verdict.
    const events = (await listAuditEvents(database.db, { runId: first.runId })).map((e) => e.event);
    expect(events).toEqual(['requested', 'approved', 'consumed', 'interrupted']);
  });
});
