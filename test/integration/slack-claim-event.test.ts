import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { slackDb } from '../../src/slack/context.js';
import { claimEventStartingRun, lockThread } from '../../src/slack/thread/claim-event.js';
import { markRunShown } from '../../src/slack/thread/kept-results.js';
import { claimUnpostedCards, flagLostCard, settleCardRepair } from '../../src/slack/card/card-repairs.js';
import { findThread } from '../../src/slack/card/cards.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';

describeBackends('claiming a message that asks for work, or a card nobody posted, on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  const thread = (runId: string, channel: string) => ({ run_id: runId, channel, thread_ts: '100.1', team_id: 'T1', requester: 'U1', message_ts: '100.2' });

  it('in a free thread: claimed once, and the new run\'s thread is on record; a retry claims nothing', async () => {
    const db = slackDb(database.db);
    const runId = randomUUID();
    const where = { agentId: 'ops', threadId: 'C1:100.1', resourceId: 'T1', staleAfterMs: 60_000 };
    expect(await claimEventStartingRun(db, 'Ev-free', thread(runId, 'C1'), where)).toBe('start');
    expect(await findThread(db, runId)).toMatchObject({ channel: 'C1', thread_ts: '100.1', message_ts: '100.2' });
    const retryRun = randomUUID();
    expect(await claimEventStartingRun(db, 'Ev-free', thread(retryRun, 'C1'), where)).toBe('duplicate');
    expect(await findThread(db, retryRun)).toBeUndefined();
  });

  it('in a thread where a run of the agent waits: claimed, but no new run is put on record', async () => {
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'w' } }] }]), tools: { delete_record: tool }, storage: database });
    await agent.generate('delete w', { threadId: 'C2:200.1', resourceId: 'T1' });
    const db = slackDb(database.db);
    const candidate = randomUUID();
    expect(await claimEventStartingRun(db, 'Ev-busy', thread(candidate, 'C2'), { agentId: 'ops', threadId: 'C2:200.1', resourceId: 'T1', staleAfterMs: 60_000 })).toBe('busy');
    expect(await findThread(db, candidate)).toBeUndefined();
    const claimed = await sql<{ n: number }>`SELECT count(*)::int AS n FROM slack_events WHERE event_id = 'Ev-busy'`.execute(database.db);
    expect(claimed.rows[0]!.n).toBe(1);
    // Another agent's run, or another workspace's, does not make the thread busy.
    expect(await claimEventStartingRun(db, 'Ev-other', thread(randomUUID(), 'C2'), { agentId: 'billing', threadId: 'C2:200.1', resourceId: 'T1', staleAfterMs: 60_000 })).toBe('start');
    expect(await claimEventStartingRun(db, 'Ev-team', thread(randomUUID(), 'C2'), { agentId: 'ops', threadId: 'C2:200.1', resourceId: 'T2', staleAfterMs: 60_000 })).toBe('start');
  });

  it('two requests at the same moment in a free thread: one starts a run, the other finds the thread busy', async () => {
    const db = slackDb(database.db);
    const where = { agentId: 'ops', threadId: 'C3:300.1', resourceId: 'T1', staleAfterMs: 60_000 };
    const [a, b] = [randomUUID(), randomUUID()];
    const claims = await Promise.all([
      claimEventStartingRun(db, 'Ev-race-a', thread(a, 'C3'), where),
      claimEventStartingRun(db, 'Ev-race-b', thread(b, 'C3'), where),
    ]);
    expect([...claims].sort()).toEqual(['busy', 'start']);
    const recording = [await findThread(db, a), await findThread(db, b)].filter(Boolean);
    expect(recording).toHaveLength(1);
    // Until the run's outcome is shown, a third request waits too; then the thread is free.
    expect(await lockThread(db, thread(randomUUID(), 'C3'), where)).toBe(false);
    await markRunShown(db, claims[0] === 'start' ? a : b);
    expect(await claimEventStartingRun(db, 'Ev-race-c', thread(randomUUID(), 'C3'), where)).toBe('start');
  });

  it('runs shown at the same moment each free their thread, and each resolves only once its thread is free', async () => {
    const db = slackDb(database.db);
    const runs = Array.from({ length: 6 }, (_, i) => ({ runId: randomUUID(), where: { agentId: 'ops', threadId: `C5:50${i}.1`, resourceId: 'T1', staleAfterMs: 60_000 } }));
    for (const [i, r] of runs.entries()) expect(await claimEventStartingRun(db, `Ev-shown-${i}`, thread(r.runId, 'C5'), r.where)).toBe('start');
    await Promise.all(
      runs.map(async (r, i) => {
        await markRunShown(db, r.runId);
        expect(await lockThread(db, thread(randomUUID(), 'C5'), r.where), `thread ${i}`).toBe(true);
      }),
    );
  });

  it('a lock left by a process that stopped before its run was on record is taken over after the lease; one whose run is on record is not', async () => {
    const db = slackDb(database.db);
    const where = { agentId: 'ops', threadId: 'C4:400.1', resourceId: 'T1', staleAfterMs: 60_000 };
    const stopped = randomUUID();
    expect(await claimEventStartingRun(db, 'Ev-stale-a', thread(stopped, 'C4'), where)).toBe('start');
    expect(await claimEventStartingRun(db, 'Ev-stale-b', thread(randomUUID(), 'C4'), where)).toBe('busy');
    await sql`UPDATE slack_thread_locks SET locked_at = now() - interval '2 minutes' WHERE run_id = ${stopped}`.execute(database.db);
    const next = randomUUID();
    expect(await claimEventStartingRun(db, 'Ev-stale-c', thread(next, 'C4'), where)).toBe('start');

    // The new holder's run is on record (it is at work): however old its lock, the thread stays its.
    await sql`INSERT INTO run_snapshots (run_id, root_run_id, agent_id, thread_id, resource_id, status, snapshot, claimed_at)
      VALUES (${next}, ${next}, 'other-agent', 'elsewhere', 'T9', 'running', '{}'::jsonb, now())`.execute(database.db);
    await sql`UPDATE slack_thread_locks SET locked_at = now() - interval '2 minutes' WHERE run_id = ${next}`.execute(database.db);
    expect(await claimEventStartingRun(db, 'Ev-stale-d', thread(randomUUID(), 'C4'), where)).toBe('busy');
    await sql`DELETE FROM run_snapshots WHERE run_id = ${next}`.execute(database.db);
  });

  it('requests without a card are claimed by one caller only, once past their grace, and only the agent\'s own', async () => {
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'u' } }] }]), tools: { delete_record: tool }, storage: database });
    const paused = await agent.generate('delete u');
    const [actionId] = (await sql<{ id: number }>`SELECT id FROM pending_actions WHERE root_run_id = ${paused.runId}`.execute(database.db)).rows.map((r) => r.id);
    const db = slackDb(database.db);
    expect(await claimUnpostedCards(db, 'ops', 60_000)).toEqual([]);
    await sql`UPDATE pending_actions SET created_at = now() - interval '1 hour' WHERE id = ${actionId}`.execute(database.db);
    expect(await claimUnpostedCards(db, 'billing', 60_000)).toEqual([]);
    // Two sweeps at once (two instances): one gets it.
    const [a, b] = await Promise.all([claimUnpostedCards(db, 'ops', 60_000), claimUnpostedCards(db, 'ops', 60_000)]);
    expect([...a, ...b].filter((id) => id === actionId)).toEqual([actionId]);
    expect(await claimUnpostedCards(db, 'ops', 60_000)).not.toContain(actionId);
  });

  it('a repair whose instance stopped before the card was posted is claimed again once its claim is past the grace, by one caller', async () => {
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'r' } }] }]), tools: { delete_record: tool }, storage: database });
    const paused = await agent.generate('delete r');
    const [actionId] = (await sql<{ id: number }>`SELECT id FROM pending_actions WHERE root_run_id = ${paused.runId}`.execute(database.db)).rows.map((r) => r.id);
    await sql`UPDATE pending_actions SET created_at = now() - interval '1 hour' WHERE id = ${actionId}`.execute(database.db);
    const db = slackDb(database.db);
    expect(await claimUnpostedCards(db, 'ops', 60_000)).toContain(actionId);
    // Still being repaired (its claim is fresh): nobody else takes it.
    expect(await claimUnpostedCards(db, 'ops', 60_000)).not.toContain(actionId);
    // The repairing instance stopped: a minute later the card is still missing.
    await sql`UPDATE slack_card_repairs SET claimed_at = now() - interval '2 minutes' WHERE action_id = ${actionId}`.execute(database.db);
    const [a, b] = await Promise.all([claimUnpostedCards(db, 'ops', 60_000), claimUnpostedCards(db, 'ops', 60_000)]);
    expect([...a, ...b].filter((id) => id === actionId)).toEqual([actionId]);
    expect(await claimUnpostedCards(db, 'ops', 60_000)).not.toContain(actionId);
    // Once its card is on record, an old repair claim is never taken up again.
    await sql`UPDATE slack_card_repairs SET claimed_at = now() - interval '2 minutes' WHERE action_id = ${actionId}`.execute(database.db);
    await sql`INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind) VALUES (${actionId}, 'C9', '900.1', '900.0', 'approval')`.execute(database.db);
    expect(await claimUnpostedCards(db, 'ops', 60_000)).not.toContain(actionId);
  });

  it('a request decided without a card row is claimed only once flagged as lost, by one caller; settled, it is off the list', async () => {
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'l' } }] }]), tools: { delete_record: tool }, storage: database });
    const paused = await agent.generate('delete l');
    const [actionId] = (await sql<{ id: number }>`SELECT id FROM pending_actions WHERE root_run_id = ${paused.runId}`.execute(database.db)).rows.map((r) => r.id);
    await sql`UPDATE pending_actions SET created_at = now() - interval '1 hour', status = 'declined', decided_at = now() WHERE id = ${actionId}`.execute(database.db);
    const db = slackDb(database.db);
    // Decided and cardless, as most such requests are that never had a card: not looked for.
    expect(await claimUnpostedCards(db, 'ops', 60_000)).not.toContain(actionId);

    // Looking for its card failed: it is on the list, and one of two sweeps takes it.
    await flagLostCard(db, actionId!);
    const [a, b] = await Promise.all([claimUnpostedCards(db, 'ops', 60_000), claimUnpostedCards(db, 'ops', 60_000)]);
    expect([...a, ...b].filter((id) => id === actionId)).toEqual([actionId]);
    // Flagging again leaves the fresh claim alone.
    await flagLostCard(db, actionId!);
    expect(await claimUnpostedCards(db, 'ops', 60_000)).not.toContain(actionId);
    // The repair stopped with the claim: taken again once past the grace.
    await sql`UPDATE slack_card_repairs SET claimed_at = now() - interval '2 minutes' WHERE action_id = ${actionId}`.execute(database.db);
    expect(await claimUnpostedCards(db, 'ops', 60_000)).toContain(actionId);

    await settleCardRepair(db, actionId!);
    await sql`UPDATE pending_actions SET created_at = now() - interval '2 hours' WHERE id = ${actionId}`.execute(database.db);
    expect(await claimUnpostedCards(db, 'ops', 60_000)).not.toContain(actionId);
  });
});
