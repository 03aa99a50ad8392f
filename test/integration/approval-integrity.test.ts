import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { MockLanguageModelV3 } from 'ai/test';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel, lastToolResults } from '../helpers/scripted-model.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { consumeGrant } from '../../src/db/grants.js';
import { recordApprovalVote, recordDecline } from '../../src/db/pending-actions.js';
import { recordEdit } from '../../src/db/edit-action.js';
import { fingerprint } from '../../src/approvals/fingerprint.js';
import { createTool } from '../../src/agent/tool.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';

const oneCall = (toolName: string, args: unknown, text = 'finished') =>
  scriptedModel([{ toolCalls: [{ toolName, args }] }, { text }]);

describeBackends('approval integrity on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  const build = (policy: PolicyInput, model = oneCall('refund', { id: 'o-1' })) => {
    const { tool, calls } = countingTool('refund');
    const agent = agentWith({ model, tools: { refund: tool }, storage: database, policy: definePolicy(policy) });
    return { agent, calls, model };
  };
  const needsApproval = (extra: Record<string, unknown> = {}): PolicyInput => ({ tools: { refund: { requireApproval: true, ...extra } } });
  /** An agent whose beforeToolCall hook swaps the refund's target right before execute. */
  const retargetingAgent = (model: Parameters<typeof agentWith>[0]['model']) => {
    const { tool, calls } = countingTool('refund');
    const agent = agentWith({
      model,
      tools: { refund: tool },
      storage: database,
      policy: definePolicy(needsApproval()),
      hooks: { beforeToolCall: ({ args }) => ({ args: { ...(args as object), id: 'o-2' } }) },
    });
    return { agent, calls };
  };
  /** Until the clock expiry is checked against, the database's, has passed the run's `expires_at` in `table`. */
  const untilExpired = async (table: 'pending_actions' | 'approval_grants', runId: string) => {
    for (;;) {
      const { rows } = await sql<{ due: boolean | null }>`SELECT bool_and(expires_at <= now()) AS due FROM ${sql.table(table)} WHERE run_id = ${runId}`.execute(database.db);
      if (rows[0]?.due) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  /** A run's open request past its expiry now, as though its time had run out. */
  const expireNow = (runIds: string[]) =>
    sql`UPDATE pending_actions SET expires_at = now() - interval '1 second' WHERE run_id = ANY(${runIds}::text[]) AND status = 'pending'`.execute(database.db);

  it('arguments changed in the stored snapshot after approval: blocked, not executed, audited', async () => {
    const { agent, calls, model } = build(needsApproval());
    const first = await agent.generate('refund', { requester: 'U_REQ' });
    await sql`
      UPDATE run_snapshots
      SET snapshot = jsonb_set(snapshot, '{messages,1,content,0,input,id}', '"o-999"')
      WHERE run_id = ${first.runId}`.execute(database.db);
    const done = await agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U_BOSS' } });
    expect(done.text).toBe('finished');
    expect(calls).toHaveLength(0);
    expect(lastToolResults(model)[0]).toMatchObject({
      output: { type: 'error-text', value: 'Tool call blocked: approval did not match refund arguments' },
    });
    const events = await listAuditEvents(database.db, { runId: first.runId });
    // The deciding vote spent the grant (consumed, before anything could run); what was about to run did not match it.
    expect(events.map((e) => e.event)).toEqual(['requested', 'approved', 'consumed', 'blocked']);
    expect(events[3]!.fingerprint).toBe(fingerprint('refund', { id: 'o-999' }));
    expect(events[2]!.fingerprint).toBe(fingerprint('refund', { id: 'o-1' }));
    expect(events[1]!.fingerprint).toBe(fingerprint('refund', { id: 'o-1' }));
  });

  it('a blocked call is on the audit log by the time the stream reports it, while the run still goes on', async () => {
    const inner = oneCall('refund', { id: 'o-1' }, 'after the block');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let streamed = 0;
    // The model's next step waits, so the run's closing write cannot have happened yet.
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        if (streamed++ === 1) await gate;
        return inner.doStream(options);
      },
    });
    const { agent, calls } = retargetingAgent(model);
    const first = await agent.generate('refund');
    const resumed = await agent.approveToolCall({ runId: first.runId, actor: { userId: 'U_BOSS' } });
    let blockedSeen = false;
    try {
      for await (const chunk of resumed.fullStream) {
        if (chunk.type !== 'tool-call-blocked') continue;
        blockedSeen = true;
        expect(chunk.payload).toMatchObject({ toolName: 'refund', runId: first.runId });
        const events = (await listAuditEvents(database.db, { runId: first.runId })).map((e) => e.event);
        expect(events).toEqual(['requested', 'approved', 'consumed', 'blocked']);
        release();
      }
    } finally {
      release();
    }
    expect(blockedSeen).toBe(true);
    expect((await resumed.result).text).toBe('after the block');
    expect(calls).toHaveLength(0);
  });

  it('arguments changed by a beforeToolCall hook: blocked; the hook alone cannot smuggle a call through', async () => {
    const { agent, calls } = retargetingAgent(oneCall('refund', { id: 'o-1' }));
    const first = await agent.generate('refund');
    await agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U_BOSS' } });
    expect(calls).toHaveLength(0);
    expect((await listAuditEvents(database.db, { runId: first.runId })).map((e) => e.event)).toContain('blocked');
  });

  it('a grant is single-use: replaying it runs nothing a second time', async () => {
    const { agent, calls } = build(needsApproval());
    const first = await agent.generate('refund');
    const decision = await agent.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U_BOSS' } });
    if (decision.outcome !== 'approved') throw new Error(`expected approved, got ${decision.outcome}`);
    await decision.stream!.result;
    expect(calls).toHaveLength(1);
    const replay = await consumeGrant(database.db, {
      runId: first.runId,
      toolCallId: decision.action.tool_call_id,
      toolName: 'refund',
      fingerprint: decision.action.fingerprint!,
      policyVersion: decision.action.policy_version!,
    });
    expect(replay).toEqual({ ok: false });
    const again = await agent.decideToolCall({ runId: first.runId, toolCallId: decision.action.tool_call_id, decision: 'approve', actor: { userId: 'U_BOSS' } });
    expect(again.outcome).toBe('already-decided');
    // The late click is on record as refused, with why.
    expect((await listAuditEvents(database.db, { runId: first.runId })).at(-1)).toMatchObject({ event: 'refused', actor: 'U_BOSS', detail: { why: 'already-decided', decision: 'approve' } });
    expect(calls).toHaveLength(1);
  });

  it('the decision that resumes the run spends its grant at once; one that leaves a call pending leaves its grant open', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'refund', args: { id: 'o-1' } }, { toolName: 'refund', args: { id: 'o-2' } }] },
      { text: 'both done' },
    ]);
    const { agent, calls } = build(needsApproval(), model);
    const first = await agent.generate('refund both');
    const grants = () =>
      sql<{ tool_call_id: string; consumed: boolean }>`
        SELECT tool_call_id, consumed_at IS NOT NULL AS consumed FROM approval_grants WHERE run_id = ${first.runId} ORDER BY id
      `.execute(database.db).then((r) => r.rows);
    const [a, b] = first.pending.map((p) => p.toolCallId);

    const one = await agent.decideToolCall({ runId: first.runId, toolCallId: a, decision: 'approve', actor: { userId: 'U_BOSS' } });
    expect(one.outcome).toBe('approved');
    expect(await grants()).toEqual([{ tool_call_id: a, consumed: false }]);
    expect(calls).toHaveLength(0);

    const two = await agent.decideToolCall({ runId: first.runId, toolCallId: b, decision: 'approve', actor: { userId: 'U_BOSS' } });
    if (two.outcome !== 'approved') throw new Error(`expected approved, got ${two.outcome}`);
    // Spent by the leasing statement itself, before anything ran.
    expect((await grants()).find((g) => g.tool_call_id === b)).toEqual({ tool_call_id: b, consumed: true });
    expect((await two.stream!.result).text).toBe('both done');
    expect(calls.map((c) => (c as { id: string }).id).sort()).toEqual(['o-1', 'o-2']);
    expect(await grants()).toEqual([
      { tool_call_id: a, consumed: true },
      { tool_call_id: b, consumed: true },
    ]);
    const events = (await listAuditEvents(database.db, { runId: first.runId })).map((e) => `${e.event}:${e.toolCallId}`);
    expect(events.filter((e) => e.startsWith('consumed:')).sort()).toEqual([`consumed:${a}`, `consumed:${b}`].sort());
    expect(events.filter((e) => e.startsWith('executed:'))).toHaveLength(2);
  });

  it('arguments changed after approval of a call whose grant was left open (its step waited on another call): blocked by that grant', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'refund', args: { id: 'o-1' } }, { toolName: 'refund', args: { id: 'o-2' } }] },
      { text: 'both handled' },
    ]);
    const { agent, calls } = build(needsApproval(), model);
    const first = await agent.generate('refund both');
    const [a, b] = first.pending.map((p) => p.toolCallId);
    expect((await agent.decideToolCall({ runId: first.runId, toolCallId: a, decision: 'approve', actor: { userId: 'U_BOSS' } })).outcome).toBe('approved');
    // The first call's arguments change after its approval; its grant, still open, is for o-1.
    await sql`
      UPDATE run_snapshots
      SET snapshot = jsonb_set(snapshot, '{messages,1,content,0,input,id}', '"o-999"')
      WHERE run_id = ${first.runId}`.execute(database.db);
    const last = await agent.decideToolCall({ runId: first.runId, toolCallId: b, decision: 'approve', actor: { userId: 'U_BOSS' } });
    if (last.outcome !== 'approved') throw new Error(`expected approved, got ${last.outcome}`);
    expect((await last.stream!.result).text).toBe('both handled');
    expect(calls).toEqual([{ id: 'o-2' }]);
    const events = await listAuditEvents(database.db, { runId: first.runId });
    expect(events.filter((e) => e.event === 'blocked').map((e) => [e.toolCallId, e.detail])).toEqual([[a, { reason: 'no unconsumed grant matches these arguments' }]]);
    const open = await sql<{ tool_call_id: string }>`SELECT tool_call_id FROM approval_grants WHERE run_id = ${first.runId} AND consumed_at IS NULL`.execute(database.db);
    expect(open.rows.map((r) => r.tool_call_id)).toEqual([a]);
  });

  it('another agent sharing the database decides, edits, answers, revokes and sees nothing of this agent’s requests', async () => {
    const policy = definePolicy({ tools: { refund: { requireApproval: true, rememberFor: '1h' } } });
    const made = (id: string, model: Parameters<typeof agentWith>[0]['model']) => {
      const { tool, calls } = countingTool('refund');
      return { agent: agentWith({ id, model, tools: { refund: tool, ask_user: askUserTool }, storage: database, policy }), calls };
    };
    const ops = made('ops', scriptedModel([
      { toolCalls: [{ toolName: 'refund', args: { id: 'x-1' } }] },
      { toolCalls: [{ toolName: 'ask_user', args: { question: 'Which region?' } }] },
      { text: 'refunded' },
    ]));
    const billing = made('billing', scriptedModel([{ text: 'nothing' }]));
    const first = await ops.agent.generate('refund', { requester: 'U_REQ' });
    const actionId = (await ops.agent.latestApprovalId(first.runId, first.pending[0]!.toolCallId))!;
    const boss = { userId: 'U_BOSS' };

    for (const req of [{ actionId }, { runId: first.runId }, { runId: first.runId, actionId }]) {
      expect(await billing.agent.decideToolCall({ ...req, decision: 'approve', actor: boss })).toMatchObject({ outcome: 'not-found' });
      expect(await billing.agent.editToolCall({ ...req, actor: boss, args: { id: 'x-2' } })).toMatchObject({ outcome: 'not-found' });
    }
    expect(await billing.agent.maySee((await ops.agent.findRequest(actionId))!, { userId: 'U_REQ' })).toBe(false);
    // Named by id under another of this agent's runs, a request is not found either.
    const other = await ops.agent.generate('ask', { requester: 'U_REQ' });
    expect(await ops.agent.decideToolCall({ runId: other.runId, actionId, decision: 'approve', actor: boss })).toMatchObject({ outcome: 'not-found' });
    await expect(billing.agent.resumeGenerate('eu', { runId: other.runId, toolCallId: other.pending[0]!.toolCallId, actor: { userId: 'U_REQ' } })).rejects.toThrow();
    expect(ops.calls).toEqual([]);
    expect(await ops.agent.findRequest(actionId)).toMatchObject({ status: 'pending', approvals: [] });

    // Approved here and remembered: the other agent can neither list nor revoke it.
    const approved = await ops.agent.decideToolCall({ actionId, decision: 'approve', actor: boss, remember: true });
    if (approved.outcome !== 'approved' || !approved.remembered) throw new Error(`expected a remembered approval, got ${approved.outcome}`);
    await approved.stream!.result;
    expect(await billing.agent.listRememberedGrants()).toEqual([]);
    expect(await billing.agent.revokeRememberedGrant(approved.remembered.id, { userId: 'U_REQ' })).toEqual({ outcome: 'not-found', id: approved.remembered.id });
    expect((await ops.agent.listRememberedGrants()).map((g) => [g.id, g.revoked_at])).toEqual([[approved.remembered.id, null]]);
    expect(ops.calls).toEqual([{ id: 'x-1' }]);
    await ops.agent.revokeRememberedGrant(approved.remembered.id, { userId: 'U_REQ' });
    await ops.agent.cancelRuns([other.runId], 'U_TEST', 'test over');
  });

  it('the bot itself approves, declines, edits and answers nothing, whatever the policy lists', async () => {
    const BOT = 'U0BOT';
    const { tool, calls } = countingTool('refund');
    const agent = agentWith({
      model: scriptedModel([{ toolCalls: [{ toolName: 'refund', args: { id: 'b-1' } }] }, { text: 'refunded' }, { toolCalls: [{ toolName: 'ask_user', args: { question: 'Which region?' } }] }]),
      tools: { refund: tool, ask_user: askUserTool },
      storage: database,
      // Anyone may approve, and a run nobody started may be answered by anyone: anyone but the bot.
      policy: definePolicy({ tools: { refund: { requireApproval: true, approvers: [] } } }),
      botUserId: BOT,
    });
    const first = await agent.generate('refund');
    const actionId = (await agent.latestApprovalId(first.runId, first.pending[0]!.toolCallId))!;
    const bot = { userId: BOT };
    expect(await agent.decideToolCall({ actionId, decision: 'approve', actor: bot })).toMatchObject({ outcome: 'not-allowed', why: 'bot' });
    expect(await agent.decideToolCall({ actionId, decision: 'decline', actor: bot })).toMatchObject({ outcome: 'not-allowed', why: 'bot' });
    expect(await agent.editToolCall({ actionId, actor: bot, args: { id: 'b-2' } })).toMatchObject({ outcome: 'not-allowed', why: 'bot' });
    expect(await agent.maySee((await agent.findRequest(actionId))!, bot)).toBe(false);
    expect((await agent.waitingFor(bot, { limit: 10 })).total).toBe(0);
    expect(calls).toEqual([]);
    const refusals = (await listAuditEvents(database.db, { runId: first.runId })).filter((e) => e.event === 'refused');
    expect(refusals.map((e) => [e.actor, e.detail?.why, e.detail?.decision])).toEqual([
      [BOT, 'bot', 'approve'],
      [BOT, 'bot', 'decline'],
      [BOT, 'bot', 'edit'],
    ]);
    const approved = await agent.decideToolCall({ actionId, decision: 'approve', actor: { userId: 'U_ANYONE' } });
    if (approved.outcome !== 'approved') throw new Error(`expected approved, got ${approved.outcome}`);
    await approved.stream!.result;

    const asked = await agent.generate('ask');
    const question = { runId: asked.runId, toolCallId: asked.pending[0]!.toolCallId };
    await expect(agent.resumeGenerate('eu', { ...question, actor: bot })).rejects.toThrow(/bot cannot answer/);
    expect(await agent.mayAnswer({ tool_name: 'ask_user', args: { question: 'Which region?' }, requester: null }, bot)).toMatchObject({ allowed: false, why: 'bot' });
    expect(await agent.mayAnswer({ tool_name: 'ask_user', args: { question: 'Which region?' }, requester: null }, { userId: 'U_ANYONE' })).toEqual({ allowed: true });
    expect(calls).toEqual([{ id: 'b-1' }]);
    await agent.cancelRuns([asked.runId], 'U_TEST', 'test over');
  });

  it('each decision statement refuses a request that moved on after the runtime checked it: decided, expired, voted, another version, other arguments', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'refund', args: { id: 's-1' } }] },
      { toolCalls: [{ toolName: 'refund', args: { id: 's-2' } }] },
      { toolCalls: [{ toolName: 'refund', args: { id: 's-3' } }] },
    ]);
    const { agent } = build(needsApproval({ quorum: 2 }), model);
    const pendingOf = async () => {
      const run = await agent.generate('refund', { requester: 'U_REQ' });
      return (await agent.findRequest((await agent.latestApprovalId(run.runId, run.pending[0]!.toolCallId))!))!;
    };
    const vote = (row: { id: number; policy_version: string | null }, actor: string, policyVersion = row.policy_version ?? '') =>
      recordApprovalVote(database.db, { actionId: row.id, actor, policyVersion, grantTtlMs: 60_000 });
    const decline = (row: { id: number; policy_version: string | null }, actor: string) =>
      recordDecline(database.db, { actionId: row.id, actor, reason: null, policyVersion: row.policy_version ?? '' });

    // Votes: one per person, under the version the request was asked with, before it expires.
    const first = await pendingOf();
    expect((await vote(first, 'U_A'))?.row).toMatchObject({ status: 'pending', approvals: [expect.objectContaining({ userId: 'U_A' })] });
    expect(await vote(first, 'U_A')).toBeUndefined();
    expect(await vote(first, 'U_B', 'v-another-policy')).toBeUndefined();
    await sql`UPDATE pending_actions SET expires_at = now() - interval '1 second' WHERE id = ${first.id}`.execute(database.db);
    expect(await vote(first, 'U_B')).toBeUndefined();
    expect(await decline(first, 'U_B')).toBeUndefined();
    expect(await agent.findRequest(first.id)).toMatchObject({ status: 'pending', approvals: [expect.objectContaining({ userId: 'U_A' })] });

    // Decided: neither a decline nor another vote lands on it.
    const second = await pendingOf();
    await vote(second, 'U_A');
    expect((await vote(second, 'U_B'))?.row).toMatchObject({ status: 'approved' });
    expect(await decline(second, 'U_C')).toBeUndefined();
    expect(await vote(second, 'U_C')).toBeUndefined();
    expect(await agent.findRequest(second.id)).toMatchObject({ status: 'approved', decided_by: 'U_B' });

    // An edit lands only on the arguments the editor saw, with the approvals its carried ones were read from.
    const third = await pendingOf();
    const args = { id: 's-3-edited' };
    const edit = (over: { fromFingerprint?: string; fromApprovals?: Array<{ userId: string; at: string }> }) =>
      recordEdit(database.db, {
        fromActionId: third.id,
        fromFingerprint: over.fromFingerprint ?? third.fingerprint!,
        ...(over.fromApprovals ? { fromApprovals: over.fromApprovals } : {}),
        editor: 'U_ED',
        args,
        fingerprint: fingerprint('refund', args),
        policyVersion: third.policy_version!,
        quorum: 2,
        expiresInMs: 60_000,
        approvals: [],
        edit: { fromActionId: third.id, editor: 'U_ED', proposedArgs: third.args },
        grantTtlMs: 60_000,
      });
    expect(await edit({ fromFingerprint: fingerprint('refund', { id: 'what-the-editor-saw' }) })).toBeUndefined();
    expect(await edit({ fromApprovals: [{ userId: 'U_A', at: new Date().toISOString() }] })).toBeUndefined();
    expect(await agent.findRequest(third.id)).toMatchObject({ status: 'pending', args: { id: 's-3' } });
    expect(await edit({})).toMatchObject({ row: { status: 'pending', args }, previous: { id: third.id, status: 'edited' } });
    // Nothing left waiting for the sweeps of the tests that follow.
    await agent.cancelRuns([first.root_run_id, third.root_run_id], 'U_TEST', 'test over');
  });

  it('50 concurrent approvals over two connections: one approved, the tool runs once, the rest already-decided', async () => {
    const { tool, calls } = countingTool('refund');
    const policy = definePolicy(needsApproval());
    const other = await database.reopen();
    const model = oneCall('refund', { id: 'o-1' });
    const agents = [database, other].map((storage) => agentWith({ model, tools: { refund: tool }, storage, policy }));
    const first = await agents[0]!.generate('refund', { requester: 'U_REQ' });
    const decisions = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        agents[i % 2]!.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: `U_APPROVER${i}` } }),
      ),
    );
    const outcomes = decisions.map((d) => d.outcome);
    expect(outcomes.filter((o) => o === 'approved')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'already-decided')).toHaveLength(49);
    const winner = decisions.find((d) => d.outcome === 'approved');
    if (winner?.outcome === 'approved') expect((await winner.stream!.result).text).toBe('finished');
    expect(calls).toHaveLength(1);
    await other.close();
  });

  it('two concurrent approveToolCall calls: one succeeds, the other gets the already-decided error', async () => {
    const { tool, calls } = countingTool('refund', { requireApproval: true });
    const other = await database.reopen();
    const model = oneCall('refund', { id: 'o-1' });
    const agents = [database, other].map((storage) => agentWith({ model, tools: { refund: tool }, storage }));
    const first = await agents[0]!.generate('refund');
    const settled = await Promise.allSettled(agents.map((a) => a.approveToolCall({ runId: first.runId, toolCallId: first.suspendPayload!.toolCallId })));
    const ok = settled.filter((s) => s.status === 'fulfilled');
    const failed = settled.filter((s) => s.status === 'rejected') as PromiseRejectedResult[];
    expect(ok).toHaveLength(1);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.reason).toMatchObject({ code: 'TOOL_CALL_NOT_PENDING', reason: 'already-decided' });
    await (ok[0] as PromiseFulfilledResult<{ result: Promise<unknown> }>).value.result;
    expect(calls).toHaveLength(1);
    await other.close();
  });

  it('quorum 2: same approver twice counts once; a second approver approves; a decline ends it', async () => {
    const { agent, calls } = build(
      needsApproval({ quorum: 2 }),
      scriptedModel([
        { toolCalls: [{ toolName: 'refund', args: { id: 'o-1' } }] },
        { text: 'finished' },
        { toolCalls: [{ toolName: 'refund', args: { id: 'o-2' } }] },
        { text: 'declined' },
      ]),
    );
    const first = await agent.generate('refund', { requester: 'U_REQ' });
    const one = await agent.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U_A' } });
    expect(one).toMatchObject({ outcome: 'approval-recorded', approvals: ['U_A'], quorum: 2, alreadyCounted: false });
    const same = await agent.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U_A' } });
    expect(same).toMatchObject({ outcome: 'approval-recorded', alreadyCounted: true });
    expect(calls).toHaveLength(0);
    const two = await agent.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U_B' } });
    expect(two.outcome).toBe('approved');
    if (two.outcome === 'approved') await two.stream!.result;
    expect(calls).toHaveLength(1);

    const second = await agent.generate('refund', { requester: 'U_REQ' });
    await agent.decideToolCall({ runId: second.runId, decision: 'approve', actor: { userId: 'U_A' } });
    const no = await agent.decideToolCall({ runId: second.runId, decision: 'decline', actor: { userId: 'U_B' }, reason: 'too much' });
    expect(no.outcome).toBe('declined');
    if (no.outcome === 'declined') await no.stream!.result;
    expect(calls).toHaveLength(1);
  });

  it('self-approval refused when not allowed and accepted when allowed; non-approvers change nothing', async () => {
    const strict = build(needsApproval({ allowSelfApproval: false }));
    const r1 = await strict.agent.generate('refund', { requester: 'U_REQ' });
    const self = await strict.agent.decideToolCall({ runId: r1.runId, decision: 'approve', actor: { userId: 'U_REQ' } });
    expect(self).toMatchObject({ outcome: 'not-allowed', why: 'self-approval' });

    const lenient = build(needsApproval({ allowSelfApproval: true }));
    const r2 = await lenient.agent.generate('refund', { requester: 'U_REQ' });
    const ok = await lenient.agent.decideToolCall({ runId: r2.runId, decision: 'approve', actor: { userId: 'U_REQ' } });
    expect(ok.outcome).toBe('approved');

    const listed = build(needsApproval({ approvers: ['UBOSS', 'SFINANCE'] }));
    const r3 = await listed.agent.generate('refund', { requester: 'U_REQ' });
    const before = await listAuditEvents(database.db, { runId: r3.runId });
    const stranger = await listed.agent.decideToolCall({ runId: r3.runId, decision: 'approve', actor: { userId: 'U_STRANGER' } });
    expect(stranger).toMatchObject({ outcome: 'not-allowed', why: 'not-an-approver' });
    const declineByStranger = await listed.agent.decideToolCall({ runId: r3.runId, decision: 'decline', actor: { userId: 'U_STRANGER' } });
    expect(declineByStranger.outcome).toBe('not-allowed');
    // Refusals change nothing but are on record as refusals.
    const after = await listAuditEvents(database.db, { runId: r3.runId });
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((e) => [e.event, e.actor, e.detail?.why, e.detail?.decision])).toEqual([
      ['refused', 'U_STRANGER', 'not-an-approver', 'approve'],
      ['refused', 'U_STRANGER', 'not-an-approver', 'decline'],
    ]);
    expect((await listed.agent.listSuspendedRuns()).runs.find((r) => r.runId === r3.runId)?.toolCalls).toHaveLength(1);
    const member = await listed.agent.decideToolCall({ runId: r3.runId, decision: 'approve', actor: { userId: 'U_FIN', groups: ['SFINANCE'] } });
    expect(member.outcome).toBe('approved');
    if (member.outcome === 'approved') await member.stream!.result;
    expect(listed.calls).toHaveLength(1);
  });

  it('expiry: the sweeper marks it expired, the model is told, a later click gets expired, audit says expired', async () => {
    const { agent, calls, model } = build(needsApproval({ expiresIn: 1 }));
    const first = await agent.generate('refund', { requester: 'U_REQ' });
    expect(await agent.sweepExpired()).toEqual([]);
    await untilExpired('pending_actions', first.runId);
    const swept = await agent.sweepExpired();
    expect(swept.map((s) => s.action.status)).toEqual(['expired']);
    expect((await swept[0]!.stream!.result).text).toBe('finished');
    expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'execution-denied', reason: expect.stringMatching(/expired/) } });
    const late = await agent.decideToolCall({ runId: first.runId, toolCallId: swept[0]!.action.tool_call_id, decision: 'approve', actor: { userId: 'U_BOSS' } });
    expect(late.outcome).toBe('expired');
    expect(calls).toHaveLength(0);
    const events = (await listAuditEvents(database.db, { runId: first.runId })).map((e) => e.event);
    // The late click is on record as refused because the request had expired.
    expect(events).toEqual(['requested', 'expired', 'refused']);
    expect(events).not.toContain('declined');
  });

  it('sweepers on two connections at once expire each request exactly once', async () => {
    const { tool, calls } = countingTool('refund');
    const policy = definePolicy(needsApproval());
    // Every new request asks for the tool; every tool result finishes.
    const model = scriptedModel([
      (call) => (call.prompt[call.prompt.length - 1]!.role === 'tool' ? { text: 'finished' } : { toolCalls: [{ toolName: 'refund', args: { id: 'o-1' } }] }),
    ]);
    const other = await database.reopen();
    const [a, b] = [database, other].map((storage) => agentWith({ model, tools: { refund: tool }, storage, policy }));
    const runs = [];
    for (let i = 0; i < 6; i++) runs.push(await a!.generate(`refund ${i}`));
    await expireNow(runs.map((r) => r.runId));
    const [sweptA, sweptB] = await Promise.all([a!.sweepExpired(), b!.sweepExpired()]);
    const ids = [...sweptA, ...sweptB].map((s) => s.action.id).sort();
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    await Promise.all([...sweptA, ...sweptB].map((s) => s.stream?.result));
    for (const run of runs) {
      const all = await listAuditEvents(database.db, { runId: run.runId });
      expect(all.map((e) => e.event)).toEqual(['requested', 'expired']);
    }
    expect(calls).toHaveLength(0);
    await other.close();
  });

  it('a click that arrives after expiry but before the sweep is refused as expired and the run continues', async () => {
    const { agent, calls } = build(needsApproval());
    const first = await agent.generate('refund');
    await expireNow([first.runId]);
    const late = await agent.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U_BOSS' } });
    expect(late.outcome).toBe('expired');
    if (late.outcome === 'expired') expect((await late.stream!.result).text).toBe('finished');
    expect(calls).toHaveLength(0);
  });

  it('policy change between request and decision: policy-changed and a fresh request under the new version', async () => {
    const { tool, calls } = countingTool('refund');
    const model = oneCall('refund', { id: 'o-1' });
    const v1 = definePolicy(needsApproval());
    const v2 = definePolicy(needsApproval({ quorum: 2 }));
    const before = agentWith({ model, tools: { refund: tool }, storage: database, policy: v1 });
    const first = await before.generate('refund');
    const after = agentWith({ model, tools: { refund: tool }, storage: database, policy: v2 });
    const decision = await after.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U_BOSS' } });
    expect(decision.outcome).toBe('policy-changed');
    const fresh = await decision.outcome === 'policy-changed' ? await (decision as { stream: { result: Promise<{ finishReason: string; pending: Array<{ toolName: string }> }> } }).stream.result : undefined;
    expect(fresh?.finishReason).toBe('suspended');
    expect(fresh?.pending.map((p) => p.toolName)).toEqual(['refund']);
    const { runs } = await after.listSuspendedRuns();
    const pending = runs.find((r) => r.runId === first.runId)!.toolCalls[0]!;
    const row = await sql<{ policy_version: string; quorum: number }>`SELECT policy_version, quorum FROM pending_actions WHERE id = ${pending.actionId}`.execute(database.db);
    expect(row.rows[0]).toEqual({ policy_version: v2.version, quorum: 2 });
    expect(calls).toHaveLength(0);

    // A policy under which the tool no longer needs approval lets the run go on.
    const v3 = definePolicy({});
    const relaxed = agentWith({ model, tools: { refund: tool }, storage: database, policy: v3 });
    const again = await relaxed.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U_BOSS' } });
    expect(again.outcome).toBe('policy-changed');
    if (again.outcome === 'policy-changed') expect((await again.stream!.result).text).toBe('finished');
    expect(calls).toHaveLength(1);
  });

  it('policy change: only someone the current policy lets decide can have the request asked again; a decline stays a decline', async () => {
    const { tool, calls } = countingTool('refund');
    const model = oneCall('refund', { id: 'o-2' });
    const v1 = definePolicy(needsApproval({ approvers: ['UBOSS'] }));
    const before = agentWith({ model, tools: { refund: tool }, storage: database, policy: v1 });
    const statusOf = async (runId: string) =>
      (await sql<{ status: string; policy_version: string }>`SELECT status, policy_version FROM pending_actions WHERE root_run_id = ${runId} ORDER BY id DESC LIMIT 1`.execute(database.db)).rows[0];

    // Still needs UBOSS (now twice): a bystander and the requester are refused, and nothing moves.
    const first = await before.generate('refund', { requester: 'UREQ' });
    const stricter = agentWith({ model, tools: { refund: tool }, storage: database, policy: definePolicy(needsApproval({ approvers: ['UBOSS', 'UCFO'], quorum: 2 })) });
    for (const userId of ['URANDOM', 'UREQ']) {
      const refused = await stricter.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId } });
      expect(refused.outcome).toBe('not-allowed');
      expect(await statusOf(first.runId)).toEqual({ status: 'pending', policy_version: v1.version });
    }

    // No approval needed any more: the requester may let the run go on; a bystander the policy does not list may not.
    const relaxed = agentWith({ model, tools: { refund: tool }, storage: database, policy: definePolicy({ tools: { refund: { requireApproval: false, approvers: ['UBOSS'] } } }) });
    expect((await relaxed.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'URANDOM' } })).outcome).toBe('not-allowed');
    expect(calls).toHaveLength(0);
    const going = await relaxed.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'UREQ' } });
    expect(going.outcome).toBe('policy-changed');
    if (going.outcome === 'policy-changed') expect((await going.stream!.result).text).toBe('finished');
    expect(calls).toHaveLength(1);

    // Declining under a changed policy declines: it never re-asks, so it can never run the tool.
    for (const userId of ['UBOSS', 'UREQ']) {
      const script = oneCall('refund', { id: 'o-3' });
      const second = await agentWith({ model: script, tools: { refund: tool }, storage: database, policy: v1 }).generate('refund', { requester: 'UREQ' });
      const later = agentWith({ model: script, tools: { refund: tool }, storage: database, policy: definePolicy({}) });
      const declined = await later.decideToolCall({ runId: second.runId, decision: 'decline', actor: { userId }, reason: 'not now' });
      expect(declined.outcome).toBe('declined');
      if (declined.outcome === 'declined') await declined.stream!.result;
      expect((await statusOf(second.runId))?.status).toBe('declined');
    }
    expect(calls).toHaveLength(1);
  });

  /**
   * A refund and a question in one step; the refund approved by UBOSS while the question still
   * holds the step, so its grant waits and nothing has run. `make` builds the agent (policy and
   * options vary) around the shared scripted model and tool.
   */
  async function refundApprovedWhileQuestionOpen(id: string, make: (deps: { model: ReturnType<typeof scriptedModel>; tools: Record<string, never> }) => ReturnType<typeof agentWith>) {
    const { tool, calls } = countingTool('refund');
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'refund', args: { id } }, { toolName: 'ask_user', args: { question: 'Which account?' } }] },
      { text: 'finished' },
    ]);
    const tools = { refund: tool, ask_user: askUserTool } as unknown as Record<string, never>;
    const agent = make({ model, tools });
    const first = await agent.generate(`refund ${id}`, { requester: 'UREQ' });
    const waiting = (await agent.listSuspendedRuns()).runs.find((r) => r.runId === first.runId)!.toolCalls;
    const refundCall = waiting.find((c) => c.toolName === 'refund')!;
    const question = waiting.find((c) => c.toolName === 'ask_user')!;
    const approved = await agent.decideToolCall({ runId: first.runId, toolCallId: refundCall.toolCallId, decision: 'approve', actor: { userId: 'UBOSS' } });
    expect(approved.outcome).toBe('approved');
    if (approved.outcome === 'approved') await approved.stream!.result;
    expect(calls).toHaveLength(0);
    return { runId: first.runId, refundCall, question, calls, model, tools };
  }

  it('an approval given under a policy that changed before its call ran is asked for again under the new one', async () => {
    let make!: (policy: PolicyInput) => ReturnType<typeof agentWith>;
    const { runId, refundCall, question, calls } = await refundApprovedWhileQuestionOpen('o-4', ({ model, tools }) => {
      make = (policy) => agentWith({ model, tools, storage: database, policy: definePolicy(policy) });
      return make(needsApproval({ approvers: ['UBOSS'] }));
    });
    // The policy now wants two approvers; the answer to the question lets the step finish.
    const v2 = make(needsApproval({ approvers: ['UBOSS', 'UCFO'], quorum: 2 }));
    const resumed = await (await v2.resumeStream('main account', { runId: runId, toolCallId: question.toolCallId, actor: { userId: 'UREQ' } })).result;
    expect(resumed.finishReason).toBe('suspended');
    expect(resumed.pending.map((p) => p.toolName)).toEqual(['refund']);
    expect(calls).toHaveLength(0);
    const events = (await listAuditEvents(database.db, { runId: runId })).map((e) => e.event);
    expect(events).toContain('superseded');
    expect(events).not.toContain('consumed');

    for (const userId of ['UBOSS', 'UCFO']) {
      const vote = await v2.decideToolCall({ runId: runId, toolCallId: refundCall.toolCallId, decision: 'approve', actor: { userId } });
      if (vote.outcome === 'approved') expect((await vote.stream!.result).text).toBe('finished');
      else expect(vote.outcome).toBe('approval-recorded');
    }
    expect(calls).toHaveLength(1);
  });

  it('an approval that outlives its grant while the step waits on another call is asked for again, not reported as changed arguments', async () => {
    let agent!: ReturnType<typeof agentWith>;
    const { runId, refundCall, question, calls } = await refundApprovedWhileQuestionOpen('o-5', ({ model, tools }) => {
      agent = agentWith({ model, tools, storage: database, policy: definePolicy(needsApproval()), grantTtlMs: 50 });
      return agent;
    });
    await untilExpired('approval_grants', runId);

    const resumed = await (await agent.resumeStream('main account', { runId: runId, toolCallId: question.toolCallId, actor: { userId: 'UREQ' } })).result;
    expect(resumed.finishReason).toBe('suspended');
    expect(resumed.pending.map((p) => p.toolName)).toEqual(['refund']);
    expect(calls).toHaveLength(0);
    const blocked = (await listAuditEvents(database.db, { runId: runId })).filter((e) => e.event === 'blocked');
    expect(blocked.map((e) => e.detail)).toEqual([{ reason: 'the approval expired before the call ran' }]);

    const again = await agent.approveToolCallGenerate({ runId: runId, toolCallId: refundCall.toolCallId, actor: { userId: 'UBOSS' } });
    expect(again.text).toBe('finished');
    expect(calls).toHaveLength(1);
  });

  it('a button carrying another fingerprint is refused and changes nothing', async () => {
    const { agent, calls } = build(needsApproval());
    const first = await agent.generate('refund');
    const d = await agent.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: 'U_BOSS' }, fingerprint: 'deadbeefdeadbeef' });
    expect(d.outcome).toBe('fingerprint-mismatch');
    expect(calls).toHaveLength(0);
    const unknown = await agent.decideToolCall({ runId: 'nope', decision: 'approve', actor: { userId: 'U_BOSS' } });
    expect(unknown).toMatchObject({ outcome: 'not-found', runExists: false });
  });

  it('the audit trail of an approve-and-execute run has every step in order with one fingerprint', async () => {
    const { agent, calls } = build(needsApproval());
    const first = await agent.generate('refund', { requester: 'U_REQ' });
    await agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U_BOSS' } });
    expect(calls).toHaveLength(1);
    const events = await listAuditEvents(database.db, { runId: first.runId });
    expect(events.map((e) => e.event)).toEqual(['requested', 'approved', 'consumed', 'executed']);
    const fp = fingerprint('refund', { id: 'o-1' });
    expect(new Set(events.map((e) => e.fingerprint))).toEqual(new Set([fp]));
    expect(events[1]!.actor).toBe('U_BOSS');
    expect(events[0]!.actor).toBe('U_REQ');
    expect(new Set(events.map((e) => e.policyVersion)).size).toBe(1);
    const times = events.map((e) => e.at.getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('a tool that throws after approval is audited as failed and the model gets a tool error', async () => {
    const broken = createTool({
      id: 'refund',
      description: 'fails',
      inputSchema: z.object({ id: z.string() }),
      requireApproval: true,
      execute: async () => {
        throw new Error('payment provider down');
      },
    });
    const model = oneCall('refund', { id: 'o-1' });
    const agent = agentWith({ model, tools: { refund: broken }, storage: database });
    const first = await agent.generate('refund');
    await agent.approveToolCallGenerate({ runId: first.runId });
    expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'error-text', value: 'Tool refund failed: payment provider down' } });
    const events = (await listAuditEvents(database.db, { runId: first.runId })).map((e) => e.event);
    expect(events).toEqual(['requested', 'approved', 'consumed', 'failed']);
  });
});
