import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends, twoConnections } from '../helpers/needs.js';
import { someoneWaitsForALock } from '../helpers/row-locks.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { agentWith, collect } from '../helpers/agents.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { createTool } from '../../src/agent/tool.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { useRememberedGrant, revokeRememberedGrant, findRememberedGrant } from '../../src/db/remembered-grants.js';
import { fingerprint } from '../../src/approvals/fingerprint.js';
import type { Policy } from '../../src/approvals/policy-types.js';

const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const CAROL = 'U0CAROL';

/** What delete_record asks under rememberPolicy: one approval by ALICE. */
const asked = { quorum: 1, approvers: [ALICE], allowSelfApproval: true, requireReason: false, risk: 'low', overLimits: false } as const;

const rememberPolicy = definePolicy({
  tools: { delete_record: { requireApproval: true, approvers: [ALICE], rememberFor: '1h' } },
});

/** One call of delete_record per run, with the id named in the user's message; then "done". */
function deleteModel() {
  const step = (call: LanguageModelV3CallOptions): ScriptStep => {
    const last = call.prompt.at(-1);
    if (last?.role === 'tool') return { text: 'done' };
    const text = last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '';
    return { toolCalls: [{ toolName: 'delete_record', args: { id: text.replace(/^delete /, '') } }] };
  };
  return scriptedModel([step]);
}

function deleteAgent(database: TestDatabase, policy: Policy = rememberPolicy, describeRisk?: 'high', rewriteTo?: string) {
  const calls: unknown[] = [];
  const tool = createTool({
    id: 'delete_record',
    description: 'delete a record',
    inputSchema: z.object({ id: z.string() }),
    ...(describeRisk ? { describe: (args: { id: string }) => ({ title: `Delete ${args.id}`, fields: [], risk: describeRisk }) } : {}),
    execute: async (input: { id: string }) => {
      calls.push(input);
      return { done: input.id };
    },
  });
  const hooks = rewriteTo ? { hooks: { beforeToolCall: () => ({ args: { id: rewriteTo } }) } } : {};
  const agent = agentWith({ model: deleteModel(), tools: { delete_record: tool }, storage: database, policy, ...hooks });
  return { agent, calls };
}

describeBackends('remembered approvals on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  async function askAndRemember(agent: ReturnType<typeof deleteAgent>['agent'], id: string, requester = BOB) {
    const stream = await agent.stream(`delete ${id}`, { requester });
    const approval = (await collect(stream)).find((c) => c.type === 'tool-call-approval');
    expect(approval).toBeDefined();
    const payload = approval!.payload as { actionId: number };
    const decision = await agent.decideToolCall({ actionId: payload.actionId, actor: { userId: ALICE }, decision: 'approve', remember: true });
    if (decision.outcome !== 'approved') throw new Error(`expected approved, got ${decision.outcome}`);
    await decision.stream?.text;
    return decision;
  }

  it('approve and remember, then the same call by the same requester runs without a request, audited as a use', async () => {
    const { agent, calls } = deleteAgent(database);
    const decision = await askAndRemember(agent, 'r1');
    expect(decision.outcome === 'approved' && decision.remembered).toMatchObject({ id: expect.any(Number) });
    const rememberedId = decision.outcome === 'approved' ? decision.remembered!.id : 0;
    const grant = await findRememberedGrant(database.db, rememberedId);
    expect(grant).toMatchObject({ tool_name: 'delete_record', requester: BOB, created_by: ALICE, approvers: [ALICE], revoked_at: null, policy_version: rememberPolicy.version });
    const ttl = new Date(grant!.expires_at).getTime() - new Date(grant!.created_at).getTime();
    expect(ttl).toBeGreaterThan(3_590_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);

    const again = await agent.stream('delete r1', { requester: BOB });
    const chunks = await collect(again);
    expect(chunks.some((c) => c.type === 'tool-call-approval')).toBe(false);
    const used = chunks.find((c) => c.type === 'tool-call-remembered');
    expect(used?.payload).toMatchObject({ toolName: 'delete_record', rememberedGrantId: rememberedId, allowedBy: ALICE, requester: BOB });
    expect(await again.text).toBe('done');
    expect(calls).toEqual([{ id: 'r1' }, { id: 'r1' }]);

    const events = await listAuditEvents(database.db, { runId: again.runId });
    const names = events.map((e) => e.event);
    expect(names).toEqual(expect.arrayContaining(['remembered-grant-used', 'consumed', 'executed']));
    expect(names.indexOf('remembered-grant-used')).toBeLessThan(names.indexOf('executed'));
    expect(events.find((e) => e.event === 'remembered-grant-used')).toMatchObject({ actor: ALICE, detail: { rememberedGrantId: rememberedId } });
    const firstRun = await listAuditEvents(database.db, { runId: decision.action.run_id });
    expect(firstRun.find((e) => e.event === 'remembered')).toMatchObject({ actor: ALICE, detail: { rememberedGrantId: rememberedId } });
  });

  it('another requester, other arguments, a run nobody requested and another policy version still ask', async () => {
    const { agent, calls } = deleteAgent(database);
    await askAndRemember(agent, 'r2');
    const asks = async (a: typeof agent, text: string, requester?: string) => {
      const chunks = await collect(await a.stream(text, requester ? { requester } : {}));
      return chunks.some((c) => c.type === 'tool-call-approval') && !chunks.some((c) => c.type === 'tool-call-remembered');
    };
    expect(await asks(agent, 'delete r2', CAROL)).toBe(true);
    expect(await asks(agent, 'delete r2-other', BOB)).toBe(true);
    expect(await asks(agent, 'delete r2')).toBe(true);
    const changed = definePolicy({ tools: { delete_record: { requireApproval: true, approvers: [ALICE, CAROL], rememberFor: '1h' } } });
    expect(changed.version).not.toBe(rememberPolicy.version);
    expect(await asks(deleteAgent(database, changed).agent, 'delete r2', BOB)).toBe(true);
    expect(calls).toEqual([{ id: 'r2' }]);
  });

  it('a request without a requester, or under a policy without rememberFor, is approved but not remembered', async () => {
    const { agent } = deleteAgent(database);
    const stream = await agent.stream('delete r3');
    const approval = (await collect(stream)).find((c) => c.type === 'tool-call-approval')!;
    const decision = await agent.decideToolCall({ actionId: (approval.payload as { actionId: number }).actionId, actor: { userId: ALICE }, decision: 'approve', remember: true });
    expect(decision).toMatchObject({ outcome: 'approved' });
    expect(decision.outcome === 'approved' && decision.remembered).toBeFalsy();

    const plain = deleteAgent(database, definePolicy({ tools: { delete_record: { requireApproval: true, approvers: [ALICE] } } })).agent;
    const asked = await plain.stream('delete r3', { requester: BOB });
    const card = (await collect(asked)).find((c) => c.type === 'tool-call-approval')!;
    const plainDecision = await plain.decideToolCall({ actionId: (card.payload as { actionId: number }).actionId, actor: { userId: ALICE }, decision: 'approve', remember: true });
    expect(plainDecision.outcome === 'approved' && plainDecision.remembered).toBeFalsy();
    expect(plain.rememberForOf({ tool_name: 'delete_record', args: { id: 'r3' }, path: ['ops'], requester: BOB })).toBeUndefined();
    expect(agent.rememberForOf({ tool_name: 'delete_record', args: { id: 'r3' }, path: ['ops'], requester: BOB })).toBe(3_600_000);
    expect(agent.rememberForOf({ tool_name: 'delete_record', args: { id: 'r3' }, path: ['ops'], requester: null })).toBeUndefined();
  });

  it('a tool that describes a call as high-risk is never remembered, whatever the policy says', async () => {
    const { agent } = deleteAgent(database, rememberPolicy, 'high');
    expect(agent.rememberForOf({ tool_name: 'delete_record', args: { id: 'x' }, path: ['ops'], requester: BOB })).toBeUndefined();
    const stream = await agent.stream('delete r4', { requester: BOB });
    const card = (await collect(stream)).find((c) => c.type === 'tool-call-approval')!;
    const decision = await agent.decideToolCall({ actionId: (card.payload as { actionId: number }).actionId, actor: { userId: ALICE }, decision: 'approve', remember: true });
    expect(decision.outcome === 'approved' && decision.remembered).toBeFalsy();
  });

  it('with a quorum of two, only an approval every approver asked to remember is remembered', async () => {
    const policy = definePolicy({ tools: { delete_record: { requireApproval: true, approvers: [ALICE, CAROL], quorum: 2, rememberFor: '30m' } } });
    const { agent } = deleteAgent(database, policy);
    const decideBoth = async (id: string, firstRemembers: boolean) => {
      const stream = await agent.stream(`delete ${id}`, { requester: BOB });
      const card = (await collect(stream)).find((c) => c.type === 'tool-call-approval')!;
      const actionId = (card.payload as { actionId: number }).actionId;
      await agent.decideToolCall({ actionId, actor: { userId: ALICE }, decision: 'approve', remember: firstRemembers });
      return agent.decideToolCall({ actionId, actor: { userId: CAROL }, decision: 'approve', remember: true });
    };
    const mixed = await decideBoth('q1', false);
    expect(mixed.outcome === 'approved' && mixed.remembered).toBeFalsy();
    const both = await decideBoth('q2', true);
    expect(both.outcome === 'approved' && both.remembered).toBeTruthy();
    if (both.outcome === 'approved') expect((await findRememberedGrant(database.db, both.remembered!.id))?.approvers.sort()).toEqual([ALICE, CAROL]);
  });

  it('an expired or revoked remembered approval is never used; revoking is authorised', async () => {
    const { agent, calls } = deleteAgent(database);
    const expired = await askAndRemember(agent, 'r5');
    await sql`UPDATE remembered_grants SET expires_at = now() - interval '1 second' WHERE id = ${expired.outcome === 'approved' ? expired.remembered!.id : 0}`.execute(database.db);
    const afterExpiry = await collect(await agent.stream('delete r5', { requester: BOB }));
    expect(afterExpiry.some((c) => c.type === 'tool-call-approval')).toBe(true);

    const decision = await askAndRemember(agent, 'r6');
    const id = decision.outcome === 'approved' ? decision.remembered!.id : 0;
    expect((await agent.listRememberedGrants({ userId: CAROL })).map((g) => g.id)).not.toContain(id);
    expect((await agent.listRememberedGrants({ userId: BOB })).map((g) => g.id)).toContain(id);
    expect((await agent.listRememberedGrants({ userId: ALICE })).map((g) => g.id)).toContain(id);
    expect(await agent.revokeRememberedGrant(id, { userId: CAROL })).toMatchObject({ outcome: 'not-allowed' });
    expect(await agent.revokeRememberedGrant(id, { userId: BOB })).toMatchObject({ outcome: 'revoked', grant: { revoked_by: BOB } });
    expect(await agent.revokeRememberedGrant(id, { userId: BOB })).toMatchObject({ outcome: 'already-ended' });
    expect(await agent.revokeRememberedGrant(999_999, { userId: BOB })).toMatchObject({ outcome: 'not-found' });
    expect((await agent.listRememberedGrants()).map((g) => g.id)).not.toContain(id);
    const afterRevoke = await collect(await agent.stream('delete r6', { requester: BOB }));
    expect(afterRevoke.some((c) => c.type === 'tool-call-approval')).toBe(true);
    expect(calls).toEqual([{ id: 'r5' }, { id: 'r6' }]);
    const revokedEvents = await listAuditEvents(database.db, { runId: decision.action.run_id });
    expect(revokedEvents.find((e) => e.event === 'remembered-revoked')).toMatchObject({ actor: BOB, detail: { rememberedGrantId: id } });
  });

  it('a hook that rewrites the arguments of a remembered call blocks it, as it blocks any approved call', async () => {
    const { agent } = deleteAgent(database);
    await askAndRemember(agent, 'r8');
    const rewriting = deleteAgent(database, rememberPolicy, undefined, 'something-else');
    const stream = await rewriting.agent.stream('delete r8', { requester: BOB });
    const chunks = await collect(stream);
    expect(chunks.some((c) => c.type === 'tool-call-approval')).toBe(false);
    expect(chunks.some((c) => c.type === 'tool-call-remembered')).toBe(false);
    expect(chunks.find((c) => c.type === 'tool-result')?.payload).toMatchObject({ isError: true, result: expect.stringContaining('Tool call blocked') });
    expect(rewriting.calls).toEqual([]);
    const names = (await listAuditEvents(database.db, { runId: stream.runId })).map((e) => e.event);
    expect(names).toEqual(expect.arrayContaining(['remembered-grant-used', 'consumed', 'blocked']));
    expect(names).not.toContain('executed');
  });

  it('a call run under a remembered approval by a process that stopped is reported interrupted by the one taking over, not run again', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let executions = 0;
    let takeover: Promise<unknown> | undefined;
    const tool = createTool({
      id: 'delete_record',
      description: 'delete a record',
      inputSchema: z.object({ id: z.string() }),
      execute: async (input: { id: string }) => {
        executions += 1;
        if (executions === 2) {
          // The first process "freezes" while running the remembered call; another instance takes the run over.
          let recovered: Awaited<ReturnType<typeof taker.recoverStaleRuns>>[number] | undefined;
          while (!(recovered = (await taker.recoverStaleRuns())[0])) await sleep(5);
          takeover = recovered.stream.result;
          await takeover;
          await sleep(250);
        }
        return { done: input.id };
      },
    });
    const stalled = agentWith({ model: deleteModel(), tools: { delete_record: tool }, storage: database, policy: rememberPolicy, runLeaseMs: 200 });
    const taker = agentWith({ model: deleteModel(), tools: { delete_record: tool }, storage: database, policy: rememberPolicy, runLeaseMs: 1 });
    await askAndRemember(stalled, 'r9');
    expect(executions).toBe(1);

    const second = await stalled.generate('delete r9', { requester: BOB });
    expect(second.error).toBeDefined();
    expect(await takeover).toMatchObject({ text: 'done' });
    expect(executions).toBe(2);
    const events = (await listAuditEvents(database.db, { runId: second.runId })).map((e) => e.event);
    expect(events.filter((e) => e === 'remembered-grant-used')).toHaveLength(1);
    expect(events).toContain('interrupted');
  });

  it('a sub-agent\'s call is remembered under its delegation path, and its use reaches the top stream', async () => {
    const { agent: billing, calls } = deleteAgent(database);
    const billingAgent = agentWith({ id: 'billing', model: deleteModel(), tools: { delete_record: billing.tools.delete_record! }, policy: rememberPolicy });
    const supervisor = (): ScriptStep[] => [
      (call) => {
        const last = call.prompt.at(-1);
        if (last?.role === 'tool') return { text: 'billing is done' };
        const text = last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '';
        return { toolCalls: [{ toolName: 'agent-billing', args: { prompt: text } }] };
      },
    ];
    const ops = agentWith({ model: scriptedModel(supervisor()), agents: { billing: billingAgent }, storage: database, policy: rememberPolicy });
    const first = await ops.stream('delete s1', { requester: BOB });
    const card = (await collect(first)).find((c) => c.type === 'tool-call-approval')!;
    expect(card.payload).toMatchObject({ path: ['ops', 'billing'] });
    const decision = await ops.decideToolCall({ actionId: (card.payload as { actionId: number }).actionId, actor: { userId: ALICE }, decision: 'approve', remember: true });
    expect(decision.outcome === 'approved' && decision.remembered).toBeTruthy();
    if (decision.outcome === 'approved') expect(await decision.stream?.text).toBe('billing is done');
    const grant = await findRememberedGrant(database.db, decision.outcome === 'approved' ? decision.remembered!.id : 0);
    expect(grant).toMatchObject({ path: ['ops', 'billing'], agent_id: 'ops' });

    const second = await ops.stream('delete s1', { requester: BOB });
    const chunks = await collect(second);
    expect(chunks.some((c) => c.type === 'tool-call-approval')).toBe(false);
    expect(chunks.find((c) => c.type === 'tool-call-remembered')?.payload).toMatchObject({ path: ['ops', 'billing'], allowedBy: ALICE });
    expect(await second.text).toBe('billing is done');
    expect(calls).toEqual([{ id: 's1' }, { id: 's1' }]);
  });

  describe('held against the requirement of the call now, limits included', () => {
    let n = 0;
    /** A requester of their own, so each case's counter starts empty (the file shares the database). */
    const requester = () => `U0LIM${backend === 'postgres' ? 'P' : 'L'}${++n}`;
    /** delete_record: a remembered approval by ALICE, then a second identical call over a count limit whose `then` asks more. */
    const limited = (then: Record<string, unknown>, base: Record<string, unknown> = {}) =>
      definePolicy({
        tools: { delete_record: { requireApproval: true, approvers: [ALICE, BOB], rememberFor: '1h', ...base, limits: [{ count: true, by: 'requester', over: '1h', above: 1, then }] } },
      });
    async function secondCall(agent: ReturnType<typeof deleteAgent>['agent'], id: string, who: string) {
      const stream = await agent.stream(`delete ${id}`, { requester: who });
      const chunks = await collect(stream);
      const approval = chunks.find((c) => c.type === 'tool-call-approval');
      return { stream, chunks, approval: approval?.type === 'tool-call-approval' ? approval.payload : undefined, remembered: chunks.some((c) => c.type === 'tool-call-remembered') };
    }

    it.each([
      ['quorum', { quorum: 2 }],
      ['approvers', { approvers: [CAROL] }],
      ['reason', { requireReason: true }],
      ['risk', { risk: 'high' }],
    ] as const)('a limit now asking for more (%s) gets the card, saying why, and nothing runs', async (why, then) => {
      const { agent, calls } = deleteAgent(database, limited(then));
      const who = requester();
      const made = await askAndRemember(agent, 'lim', who);
      const grantId = made.outcome === 'approved' ? made.remembered!.id : 0;
      const second = await secondCall(agent, 'lim', who);
      expect(second.remembered).toBe(false);
      expect(second.approval?.rememberedUnused).toMatchObject({ rememberedGrantId: grantId, allowedBy: ALICE, approvals: 1, why: [why] });
      expect(await second.stream.finishReason).toBe('suspended');
      const row = await agent.findRequest(second.approval!.actionId);
      expect(row).toMatchObject({ status: 'pending', remembered_unused: { rememberedGrantId: grantId, why: [why] } });
      expect(calls).toHaveLength(1);
      const uses = await sql`SELECT 1 FROM audit_events WHERE event = 'remembered-grant-used' AND (detail->>'rememberedGrantId')::int = ${grantId}`.execute(database.db);
      expect(uses.rows).toEqual([]);
    });

    it('self-approval: the requester\'s own remembered approval is not used once a limit forbids self-approval', async () => {
      const { agent, calls } = deleteAgent(database, limited({ allowSelfApproval: false }, { allowSelfApproval: true }));
      const stream = await agent.stream('delete self', { requester: ALICE });
      const approval = (await collect(stream)).find((c) => c.type === 'tool-call-approval')!.payload as { actionId: number };
      const made = await agent.decideToolCall({ actionId: approval.actionId, actor: { userId: ALICE }, decision: 'approve', remember: true });
      expect(made.outcome === 'approved' && made.remembered).toBeTruthy();
      if (made.outcome === 'approved') await made.stream!.text;
      // Her second call in the hour is over the limit, which forbids self-approval.
      const second = await secondCall(agent, 'self', ALICE);
      expect(second.approval?.rememberedUnused?.why).toEqual(['self-approval']);
      expect(calls).toHaveLength(1);
    });

    it('a remembered approval that satisfies what the limit asks is still used: over a limit whose approvers include its approver', async () => {
      const { agent, calls } = deleteAgent(database, limited({ approvers: [ALICE] }));
      const who = requester();
      await askAndRemember(agent, 'ok', who);
      const second = await secondCall(agent, 'ok', who);
      expect(second.approval).toBeUndefined();
      expect(second.remembered).toBe(true);
      expect(calls).toEqual([{ id: 'ok' }, { id: 'ok' }]);
    });

    it('two approvals remembered under quorum 2 cover a limit asking for 2', async () => {
      const { agent, calls } = deleteAgent(database, limited({ quorum: 2 }, { quorum: 2 }));
      const who = requester();
      const stream = await agent.stream('delete two', { requester: who });
      const approval = (await collect(stream)).find((c) => c.type === 'tool-call-approval')!.payload as { actionId: number };
      expect((await agent.decideToolCall({ actionId: approval.actionId, actor: { userId: ALICE }, decision: 'approve', remember: true })).outcome).toBe('approval-recorded');
      const made = await agent.decideToolCall({ actionId: approval.actionId, actor: { userId: BOB }, decision: 'approve', remember: true });
      expect(made.outcome === 'approved' && made.remembered).toBeTruthy();
      if (made.outcome === 'approved') await made.stream!.text;
      const second = await secondCall(agent, 'two', who);
      expect(second.remembered).toBe(true);
      expect(calls).toHaveLength(2);
    });

    it('an approval remembered before its requirement was kept is used only where no limit is involved', async () => {
      const policy = definePolicy({
        tools: { delete_record: { requireApproval: true, approvers: [ALICE, BOB], rememberFor: '1h', limits: [{ count: true, by: 'requester', over: '1h', above: 2, then: { quorum: 2 } }] } },
      });
      const { agent, calls } = deleteAgent(database, policy);
      const who = requester();
      const made = await askAndRemember(agent, 'old', who);
      const grantId = made.outcome === 'approved' ? made.remembered!.id : 0;
      await sql`UPDATE remembered_grants SET requirement = NULL WHERE id = ${grantId}`.execute(database.db);
      expect((await secondCall(agent, 'old', who)).remembered).toBe(true);
      const third = await secondCall(agent, 'old', who);
      expect(third.approval?.rememberedUnused?.why).toEqual(['limits']);
      expect(calls).toHaveLength(2);
    });
  });

  it('a revoke racing a use: the use comes before the revoke commits, or finds it revoked', twoConnections(backend), async () => {
    const { agent } = deleteAgent(database);
    const other = await database.reopen();
    try {
      const useOf = (toolCallId: string) =>
        useRememberedGrant(database.db, {
          runId: `race-${toolCallId}`, rootRunId: `race-${toolCallId}`, toolCallId, toolName: 'delete_record', path: ['ops'], args: { id: 'r7' },
          fingerprint: fingerprint('delete_record', { id: 'r7' }), requester: BOB, policyVersion: rememberPolicy.version, grantTtlMs: 60_000, now: asked,
        });
      // Revoke first, not yet committed: the use waits for it, then finds the grant revoked.
      const first = await askAndRemember(agent, 'r7');
      const firstId = first.outcome === 'approved' ? first.remembered!.id : 0;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let revokeDone!: () => void;
      const revoked = new Promise<void>((resolve) => (revokeDone = resolve));
      const revoking = other.db.transaction().execute(async (trx) => {
        expect(await revokeRememberedGrant(trx, firstId, ALICE)).toBeDefined();
        revokeDone();
        await held;
      });
      await revoked;
      let settled = false;
      const use = useOf('c1').then((r) => ((settled = true), r));
      await someoneWaitsForALock(database.db, { on: 'remembered_grants', what: 'the use did not wait for the revoke' });
      expect(settled).toBe(false);
      release();
      await revoking;
      expect(await use).toBeUndefined();

      // A use first, not yet committed: the revoke waits for it; the use stands, and the next use finds it revoked.
      const second = await askAndRemember(agent, 'r7');
      const secondId = second.outcome === 'approved' ? second.remembered!.id : 0;
      let releaseUse!: () => void;
      const useHeld = new Promise<void>((resolve) => (releaseUse = resolve));
      let usedInTrx: unknown;
      let useDone!: () => void;
      const usedSignal = new Promise<void>((resolve) => (useDone = resolve));
      const using = database.db.transaction().execute(async (trx) => {
        usedInTrx = await useRememberedGrant(trx, {
          runId: 'race-c2', rootRunId: 'race-c2', toolCallId: 'c2', toolName: 'delete_record', path: ['ops'], args: { id: 'r7' },
          fingerprint: fingerprint('delete_record', { id: 'r7' }), requester: BOB, policyVersion: rememberPolicy.version, grantTtlMs: 60_000, now: asked,
        });
        useDone();
        await useHeld;
      });
      await usedSignal;
      expect(usedInTrx).toMatchObject({ used: { remembered: { id: secondId } } });
      let revokeSettled = false;
      const revoke = revokeRememberedGrant(other.db, secondId, ALICE).then((r) => ((revokeSettled = true), r));
      await someoneWaitsForALock(database.db, { on: 'remembered_grants', what: 'the revoke did not wait for the use' });
      expect(revokeSettled).toBe(false);
      releaseUse();
      await using;
      expect(await revoke).toMatchObject({ id: secondId, revoked_by: ALICE });
      expect(await useOf('c3')).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});
