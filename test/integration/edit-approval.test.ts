import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends, twoConnections } from '../helpers/needs.js';
import { someoneWaitsForALock } from '../helpers/row-locks.js';
import { scriptedModel, lastToolResults } from '../helpers/scripted-model.js';
import { agentWith } from '../helpers/agents.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { fingerprint } from '../../src/approvals/fingerprint.js';
import { createTool } from '../../src/agent/tool.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import type { Agent } from '../../src/agent/agent.js';
import type { EditOutcome } from '../../src/agent/edit.js';
import type { Database } from '../../src/db/database.js';
import { countLimitUsage } from '../../src/db/limit-usage.js';
import { editFormOf } from '../../src/slack/card/render-card.js';
import { requestOf } from '../../src/agent/request.js';

const refundArgs = { orderId: 'o-1', amountCents: 150050 };

describeBackends('edit then approve on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  const build = (policy: PolicyInput, args: unknown = refundArgs) => {
    const calls: unknown[] = [];
    const tool = createTool({
      id: 'refund',
      description: 'refund an order',
      inputSchema: z.object({ orderId: z.string(), amountCents: z.number().int().positive(), note: z.string().optional() }),
      execute: async (input: unknown) => {
        calls.push(input);
        return { refunded: (input as { amountCents: number }).amountCents };
      },
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'refund', args }] }, { text: 'finished' }]);
    const agent = agentWith({ model, tools: { refund: tool }, storage: database, policy: definePolicy(policy) });
    return { agent, calls, model };
  };
  const start = async (agent: Agent) => {
    const first = await agent.generate('refund', { requester: 'UREQ' });
    expect(first.finishReason).toBe('suspended');
    const actionId = (await agent.latestApprovalId(first.runId, (first.suspendPayload as { toolCallId: string }).toolCallId))!;
    return { runId: first.runId, actionId };
  };
  const finance = (extra: Record<string, unknown> = {}): PolicyInput => ({
    tools: {
      refund: {
        requireApproval: true,
        approvers: ['UCAROL', 'UDAVE', 'UFIN'],
        ...extra,
        rules: [{ when: { arg: 'amountCents', op: 'gt', value: 120000 }, then: { approvers: ['UFIN'] } }],
      },
    },
  });

  it('executes the edited arguments exactly once, tells the model, and audits proposed, edited and executed', async () => {
    const { agent, calls, model } = build({ tools: { refund: { requireApproval: true, approvers: ['UCAROL', 'UFIN'] } } });
    const { runId, actionId } = await start(agent);
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 100000 } });
    expect(outcome.outcome).toBe('approved');
    if (outcome.outcome !== 'approved') return;
    expect(outcome.previous).toMatchObject({ id: actionId, status: 'edited', decided_by: 'UCAROL' });
    expect(outcome.action).toMatchObject({ status: 'approved', args: { orderId: 'o-1', amountCents: 100000 }, fingerprint: fingerprint('refund', { orderId: 'o-1', amountCents: 100000 }) });
    expect(outcome.action.edit).toEqual({ fromActionId: actionId, editor: 'UCAROL', proposedArgs: refundArgs });
    expect(await outcome.stream!.text).toBe('finished');
    expect(calls).toEqual([{ orderId: 'o-1', amountCents: 100000 }]);
    const [result] = lastToolResults(model);
    expect(result).toMatchObject({ type: 'tool-result', output: { type: 'text' } });
    const text = (result as { output: { value: string } }).output.value;
    expect(text).toContain('An approver (UCAROL) changed the arguments before approving: amountCents 150050 → 100000');
    expect(text).toContain('"refunded":100000');
    expect(text).toContain('The tool ran with the changed arguments: {"orderId":"o-1","amountCents":100000}');
    // The model's call shows in its history with the arguments that ran, so what it says next is about those.
    const prompt = model.doStreamCalls.at(-1)!.prompt;
    const call = prompt.flatMap((m) => (m.role === 'assistant' ? m.content : [])).find((p) => p.type === 'tool-call') as { input: unknown };
    expect(call.input).toEqual({ orderId: 'o-1', amountCents: 100000 });

    const events = await listAuditEvents(database.db, { runId });
    expect(events.map((e) => e.event)).toEqual(['requested', 'edited', 'approved', 'consumed', 'executed']);
    expect(events.find((e) => e.event === 'edited')?.detail).toMatchObject({
      proposedArgs: refundArgs,
      editedArgs: { orderId: 'o-1', amountCents: 100000 },
      editor: 'UCAROL',
      fromActionId: actionId,
      toActionId: outcome.action.id,
    });
    expect(events.find((e) => e.event === 'executed')).toMatchObject({
      fingerprint: fingerprint('refund', { orderId: 'o-1', amountCents: 100000 }),
      detail: { args: { orderId: 'o-1', amountCents: 100000 }, editedBy: 'UCAROL' },
    });
    // The request the model asked for can no longer be approved.
    const late = await agent.decideToolCall({ actionId, actor: { userId: 'UFIN' }, decision: 'approve' });
    expect(late.outcome).toBe('already-decided');
    expect(calls).toHaveLength(1);
  });

  it('with a quorum of 2 the run stays blocked until a second approver approves the new arguments', async () => {
    const { agent, calls } = build({ tools: { refund: { requireApproval: true, approvers: ['UCAROL', 'UDAVE'], quorum: 2 } } });
    const { actionId } = await start(agent);
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 90000 } });
    expect(outcome).toMatchObject({ outcome: 'approval-recorded', approvals: ['UCAROL'], quorum: 2 });
    if (outcome.outcome !== 'approval-recorded') return;
    const old = await agent.decideToolCall({ actionId, actor: { userId: 'UDAVE' }, decision: 'approve' });
    expect(old.outcome).toBe('already-decided');
    const stale = await agent.decideToolCall({ actionId: outcome.action.id, fingerprint: fingerprint('refund', refundArgs).slice(0, 16), actor: { userId: 'UDAVE' }, decision: 'approve' });
    expect(stale.outcome).toBe('fingerprint-mismatch');
    const again = await agent.decideToolCall({ actionId: outcome.action.id, actor: { userId: 'UCAROL' }, decision: 'approve' });
    expect(again.outcome).toBe('approval-recorded');
    expect(calls).toHaveLength(0);
    const second = await agent.decideToolCall({ actionId: outcome.action.id, actor: { userId: 'UDAVE' }, decision: 'approve' });
    expect(second.outcome).toBe('approved');
    if (second.outcome !== 'approved') return;
    await second.stream!.result;
    expect(calls).toEqual([{ orderId: 'o-1', amountCents: 90000 }]);
  });

  it('where approving needs a reason, an edit is not the editor\'s approval: the edited request waits for one with a reason', async () => {
    const { agent, calls } = build({ tools: { refund: { requireApproval: true, approvers: ['UCAROL', 'UDAVE'], requireReason: true } } });
    const { actionId } = await start(agent);
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 90000 } });
    expect(outcome).toMatchObject({ outcome: 'pending', why: 'reason-required', action: { status: 'pending', approvals: [] } });
    if (outcome.outcome !== 'pending') return;
    expect(calls).toHaveLength(0);
    const bare = await agent.decideToolCall({ actionId: outcome.action.id, actor: { userId: 'UCAROL' }, decision: 'approve' });
    expect(bare).toMatchObject({ outcome: 'not-allowed', why: 'reason-required' });
    const given = await agent.decideToolCall({ actionId: outcome.action.id, actor: { userId: 'UCAROL' }, reason: 'Partial refund agreed', decision: 'approve' });
    expect(given.outcome).toBe('approved');
    if (given.outcome !== 'approved') return;
    await given.stream!.result;
    expect(calls).toEqual([{ orderId: 'o-1', amountCents: 90000 }]);
  });

  const limited = (): PolicyInput => ({
    tools: {
      refund: {
        requireApproval: true,
        approvers: ['UCAROL', 'UDAVE'],
        limits: [{ sum: 'amountCents', over: '24h', above: 100000, then: { quorum: 2 } }],
      },
    },
  });
  /** The refund counter's window total and how many calls it holds (the file's tests share the database). */
  const refundCounter = async () => {
    const row = await sql<{ total: number; n: number }>`
      SELECT (SELECT COALESCE(sum(a), 0) FROM unnest(amounts) a) AS total, cardinality(calls) AS n FROM limit_usage WHERE tool_key = 'refund'`.execute(database.db);
    return { total: Number(row.rows[0]?.total ?? 0), n: Number(row.rows[0]?.n ?? 0) };
  };

  it('an edit re-counts the cumulative limit with the edited arguments: edited up over it, the edited request needs what the limit asks', async () => {
    await sql`DELETE FROM limit_usage WHERE tool_key = 'refund'`.execute(database.db);
    const { agent, calls } = build(limited(), { orderId: 'o-1', amountCents: 50000 });
    const { runId, actionId } = await start(agent);
    expect((await agent.findRequest(actionId))).toMatchObject({ quorum: 1, limit_hits: null });
    // Edited to 1,500.00: the window holds 1,500.00 (the call's 500.00 replaced, not added to), over 1,000.00.
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 150000 } });
    expect(outcome).toMatchObject({ outcome: 'approval-recorded', approvals: ['UCAROL'], quorum: 2 });
    if (outcome.outcome !== 'approval-recorded') return;
    expect(outcome.action.limit_hits).toEqual([{ limit: 0, sum: 'amountCents', total: 150000, above: 100000, overMs: 86_400_000 }]);
    expect(agent.requirementOf(outcome.action)).toMatchObject({ quorum: 2, limitHits: [{ total: 150000 }] });
    expect(await refundCounter()).toEqual({ total: 150000, n: 1 });
    const events = await listAuditEvents(database.db, { runId });
    expect(events.find((e) => e.event === 'edited')?.detail).toMatchObject({ limits: [{ limit: 0, total: 150000, above: 100000 }] });
    expect(calls).toHaveLength(0);
    const second = await agent.decideToolCall({ actionId: outcome.action.id, actor: { userId: 'UDAVE' }, decision: 'approve' });
    expect(second.outcome).toBe('approved');
    if (second.outcome !== 'approved') return;
    await second.stream!.result;
    expect(calls).toEqual([{ orderId: 'o-1', amountCents: 150000 }]);
    // Running it did not count it again.
    expect(await refundCounter()).toEqual({ total: 150000, n: 1 });
  });

  it('an edit re-counts the cumulative limit: edited down under it, the request needs what one for the smaller amount would', async () => {
    await sql`DELETE FROM limit_usage WHERE tool_key = 'refund'`.execute(database.db);
    const { agent, calls } = build(limited());
    const { actionId } = await start(agent);
    expect(await agent.findRequest(actionId)).toMatchObject({ quorum: 2, limit_hits: [{ total: 150050 }] });
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 50000 } });
    expect(outcome.outcome).toBe('approved');
    if (outcome.outcome !== 'approved') return;
    expect(outcome.action).toMatchObject({ quorum: 1, limit_hits: null });
    await outcome.stream!.result;
    expect(calls).toEqual([{ orderId: 'o-1', amountCents: 50000 }]);
    expect(await refundCounter()).toEqual({ total: 50000, n: 1 });
  });

  it('an edit costs the statements it did for a tool without limits, and one read more for a tool with them', async () => {
    let statements = 0;
    const counting = database.db.withPlugin({
      transformQuery: (args) => ((statements += 1), args.node),
      transformResult: async (args) => args.result,
    });
    const editsCost = async (policy: PolicyInput, amountCents: number) => {
      const { agent } = build(policy, { orderId: 'o-1', amountCents: 50000 });
      const { actionId } = await start(agent);
      const editor = agentWith({ model: scriptedModel([]), tools: { refund: agent.tools.refund! }, storage: counting, policy: definePolicy(policy) });
      statements = 0;
      const outcome = await editor.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents } });
      expect(outcome.outcome).toBe('approval-recorded');
      return statements;
    };
    // Quorum 2, so the edit records a vote and starts nothing: its read of the request, its one statement.
    const plain = await editsCost({ tools: { refund: { requireApproval: true, approvers: ['UCAROL', 'UDAVE'], quorum: 2 } } }, 40000);
    expect(plain).toBe(2);
    await sql`DELETE FROM limit_usage WHERE tool_key = 'refund'`.execute(database.db);
    expect(await editsCost(limited(), 150000)).toBe(plain + 1);
  });

  it('a tool without limits spends nothing on them when edited: its counters are not touched', async () => {
    await sql`DELETE FROM limit_usage WHERE tool_key = 'refund'`.execute(database.db);
    const { agent } = build(finance());
    const { actionId } = await start(agent);
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UFIN' }, args: { orderId: 'o-1', amountCents: 100 } });
    expect(outcome.outcome).toBe('approved');
    if (outcome.outcome === 'approved') await outcome.stream!.result;
    expect((await sql`SELECT 1 FROM limit_usage WHERE tool_key = 'refund'`.execute(database.db)).rows).toEqual([]);
  });

  it('an earlier approval is carried over only with keepApprovalsOnEdit', async () => {
    const { agent, calls } = build({ tools: { refund: { requireApproval: true, approvers: ['UCAROL', 'UDAVE', 'UEVE'], quorum: 2, keepApprovalsOnEdit: true } } });
    const { actionId } = await start(agent);
    expect((await agent.decideToolCall({ actionId, actor: { userId: 'UDAVE' }, decision: 'approve' })).outcome).toBe('approval-recorded');
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 90000 } });
    expect(outcome.outcome).toBe('approved');
    if (outcome.outcome !== 'approved') return;
    expect(outcome.action.approvals.map((a) => a.userId)).toEqual(['UDAVE', 'UCAROL']);
    await outcome.stream!.result;
    expect(calls).toEqual([{ orderId: 'o-1', amountCents: 90000 }]);

    const plain = build({ tools: { refund: { requireApproval: true, approvers: ['UCAROL', 'UDAVE', 'UEVE'], quorum: 2 } } });
    const second = await start(plain.agent);
    await plain.agent.decideToolCall({ actionId: second.actionId, actor: { userId: 'UDAVE' }, decision: 'approve' });
    const restarted = await plain.agent.editToolCall({ actionId: second.actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 90000 } });
    expect(restarted).toMatchObject({ outcome: 'approval-recorded', approvals: ['UCAROL'] });
  });

  it('keepApprovalsOnEdit carries only the approvals of people who may approve the edited arguments', async () => {
    const { agent, calls } = build(
      {
        tools: {
          refund: {
            requireApproval: true,
            approvers: ['UCAROL', 'UDAVE', 'UFIN'],
            quorum: 2,
            keepApprovalsOnEdit: true,
            rules: [{ when: { arg: 'amountCents', op: 'gt', value: 120000 }, then: { approvers: ['UFIN', 'UGINA'] } }],
          },
        },
      },
      { orderId: 'o-1', amountCents: 100000 },
    );
    const { actionId } = await start(agent);
    expect((await agent.decideToolCall({ actionId, actor: { userId: 'UDAVE' }, decision: 'approve' })).outcome).toBe('approval-recorded');
    // Raised past Dave's rule: his approval of the smaller amount does not count for the larger one.
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UFIN' }, args: { orderId: 'o-1', amountCents: 150000 } });
    expect(outcome).toMatchObject({ outcome: 'approval-recorded', approvals: ['UFIN'], quorum: 2 });
    if (outcome.outcome !== 'approval-recorded') return;
    expect(calls).toEqual([]);
    const gina = await agent.decideToolCall({ actionId: outcome.action.id, actor: { userId: 'UGINA' }, decision: 'approve' });
    if (gina.outcome !== 'approved') throw new Error(`expected approved, got ${gina.outcome}`);
    await gina.stream!.result;
    expect(calls).toEqual([{ orderId: 'o-1', amountCents: 150000 }]);
  });

  it('an editor who may not approve the new arguments leaves the request pending for those who may', async () => {
    // 1,000.00 is within Carol's rule; she raises it above it, where only finance approves.
    const { agent: raised, calls } = build(finance(), { orderId: 'o-1', amountCents: 100000 });
    const { actionId } = await start(raised);
    const outcome = await raised.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 150000 } });
    expect(outcome).toMatchObject({ outcome: 'pending', why: 'not-an-approver' });
    if (outcome.outcome !== 'pending') return;
    expect(outcome.action).toMatchObject({ status: 'pending', approvals: [] });
    expect((await raised.decideToolCall({ actionId: outcome.action.id, actor: { userId: 'UDAVE' }, decision: 'approve' })).outcome).toBe('not-allowed');
    const fin = await raised.decideToolCall({ actionId: outcome.action.id, actor: { userId: 'UFIN' }, decision: 'approve' });
    expect(fin.outcome).toBe('approved');
    if (fin.outcome !== 'approved') return;
    await fin.stream!.result;
    expect(calls).toEqual([{ orderId: 'o-1', amountCents: 150000 }]);
  });

  it('self-approval rules apply to the editor', async () => {
    const { agent, calls } = build({ tools: { refund: { requireApproval: true, approvers: ['UREQ', 'UCAROL'], allowSelfApproval: false } } });
    const { actionId } = await start(agent);
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UREQ' }, args: { orderId: 'o-1', amountCents: 100 } });
    expect(outcome).toMatchObject({ outcome: 'not-allowed', why: 'self-approval' });
    expect((await agent.findRequest(actionId))?.status).toBe('pending');
    expect(calls).toHaveLength(0);
    const events = await listAuditEvents(database.db, { runId: (await agent.findRequest(actionId))!.run_id });
    expect(events.at(-1)).toMatchObject({ event: 'refused', actor: 'UREQ', detail: { decision: 'edit', why: 'self-approval' } });
  });

  it('a requester who may approve their own small refund may not approve it raised past the self-approval rule', async () => {
    const policy: PolicyInput = {
      tools: {
        refund: {
          requireApproval: true,
          approvers: ['UREQ', 'UCAROL'],
          allowSelfApproval: true,
          rules: [{ when: { arg: 'amountCents', op: 'gt', value: 120000 }, then: { allowSelfApproval: false } }],
        },
      },
    };
    const { agent, calls } = build(policy, { orderId: 'o-1', amountCents: 100000 });
    const { actionId } = await start(agent);
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UREQ' }, args: { orderId: 'o-1', amountCents: 130000 } });
    expect(outcome).toMatchObject({ outcome: 'pending', why: 'self-approval' });
    if (outcome.outcome !== 'pending') return;
    expect(calls).toHaveLength(0);
    const carol = await agent.decideToolCall({ actionId: outcome.action.id, actor: { userId: 'UCAROL' }, decision: 'approve' });
    expect(carol.outcome).toBe('approved');
    if (carol.outcome === 'approved') await carol.stream!.result;
    expect(calls).toEqual([{ orderId: 'o-1', amountCents: 130000 }]);
  });

  it('an edit of a request past its time expires it, and the run goes on at once with the call denied', async () => {
    const { agent, calls, model } = build({ tools: { refund: { requireApproval: true, approvers: ['UCAROL'] } } });
    const { actionId } = await start(agent);
    // Past its time, before the sweep got to it.
    await sql`UPDATE pending_actions SET expires_at = now() - interval '1 second' WHERE id = ${actionId}`.execute(database.db);
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 100 } });
    expect(outcome.outcome).toBe('expired');
    if (outcome.outcome !== 'expired') return;
    expect((await outcome.stream!.result).text).toBe('finished');
    expect(await agent.findRequest(actionId)).toMatchObject({ status: 'expired' });
    expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'execution-denied' } });
    expect(calls).toEqual([]);
  });

  it('invalid arguments change nothing; unchanged ones are a plain approve', async () => {
    const { agent, calls } = build({ tools: { refund: { requireApproval: true } } });
    const { actionId } = await start(agent);
    const bad = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: -5 } });
    expect(bad.outcome).toBe('invalid-args');
    expect(bad.outcome === 'invalid-args' && bad.issues[0]?.path).toBe('amountCents');
    expect((await agent.findRequest(actionId))?.status).toBe('pending');
    const same = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { amountCents: 150050, orderId: 'o-1' } });
    expect(same.outcome).toBe('unchanged');
    if (same.outcome !== 'unchanged' || same.decision.outcome !== 'approved') throw new Error('expected a plain approve');
    await same.decision.stream!.result;
    expect(calls).toEqual([refundArgs]);
  });

  it('allowEdit: false turns editing off, in the schema offered and in the edit itself', async () => {
    const { agent } = build({ tools: { refund: { requireApproval: true, allowEdit: false } } });
    const { actionId } = await start(agent);
    const row = (await agent.findRequest(actionId))!;
    expect(agent.editSchemaOf(row)).toBeUndefined();
    const outcome = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 1 } });
    expect(outcome).toMatchObject({ outcome: 'not-editable', why: 'edit-not-allowed' });

    const open = build({ tools: { refund: { requireApproval: true } } });
    const other = await start(open.agent);
    expect(open.agent.editSchemaOf((await open.agent.findRequest(other.actionId))!)).toMatchObject({ type: 'object', properties: { amountCents: { type: 'integer' } } });
  });

  it('offers a form only for a flat schema the modal can show', async () => {
    const { agent } = build({ tools: { refund: { requireApproval: true } } });
    const { actionId } = await start(agent);
    const request = requestOf((await agent.findRequest(actionId))!);
    const form = editFormOf(agent, request)!;
    expect(form.fields.map((f) => [f.name, f.field.type, f.required])).toEqual([
      ['orderId', 'string', true],
      ['amountCents', 'integer', true],
      ['note', 'string', false],
    ]);
    // zod's ±(2^53 − 1) bounds of an integer are no bound a person needs in the number input.
    expect(form.fields[1]!.field).not.toHaveProperty('maximum');
    const nested = createTool({ id: 'nested', description: 'x', inputSchema: z.object({ target: z.object({ id: z.string() }) }), execute: () => null });
    const other = agentWith({ model: scriptedModel([{ text: 'x' }]), tools: { nested }, storage: database, policy: definePolicy({}) });
    expect(editFormOf(other, { ...request, toolName: 'nested', args: { target: { id: 'a' } } })).toBeUndefined();
  });

  it('two editors, or an edit and an approve, at once: exactly one wins', async () => {
    const { agent, calls } = build({ tools: { refund: { requireApproval: true } } });
    const { actionId } = await start(agent);
    const [a, b] = await Promise.all([
      agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 100 } }),
      agent.editToolCall({ actionId, actor: { userId: 'UDAVE' }, args: { orderId: 'o-1', amountCents: 200 } }),
    ]);
    expect([a.outcome, b.outcome].sort()).toEqual(['already-decided', 'approved']);
    const winner = a.outcome === 'approved' ? a : b;
    if (winner.outcome === 'approved') await winner.stream!.result;
    expect(calls).toHaveLength(1);

    const race = build({ tools: { refund: { requireApproval: true } } });
    const second = await start(race.agent);
    const [edit, approve] = await Promise.all([
      race.agent.editToolCall({ actionId: second.actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 100 } }),
      race.agent.decideToolCall({ actionId: second.actionId, actor: { userId: 'UDAVE' }, decision: 'approve' }),
    ]);
    const outcomes = [edit.outcome, approve.outcome].sort();
    expect(outcomes).toEqual(['already-decided', 'approved']);
    for (const o of [edit, approve]) if (o.outcome === 'approved' && o.stream) await o.stream.result;
    expect(race.calls).toHaveLength(1);
    expect(race.calls[0]).toEqual(edit.outcome === 'approved' ? { orderId: 'o-1', amountCents: 100 } : refundArgs);
  });

  it('an edit racing an approve under a limit: the counter holds the amount of whichever runs, never the loser\'s', async () => {
    for (let round = 0; round < 4; round++) {
      await sql`DELETE FROM limit_usage WHERE tool_key = 'refund'`.execute(database.db);
      const { agent, calls } = build(limited(), { orderId: 'o-1', amountCents: 50000 });
      const { actionId } = await start(agent);
      const [edit, approve] = await Promise.all([
        agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 10 } }),
        agent.decideToolCall({ actionId, actor: { userId: 'UDAVE' }, decision: 'approve' }),
      ]);
      expect([edit.outcome, approve.outcome].sort()).toEqual(['already-decided', 'approved']);
      for (const o of [edit, approve]) if (o.outcome === 'approved' && o.stream) await o.stream.result;
      const ran = edit.outcome === 'approved' ? 10 : 50000;
      expect(calls).toEqual([{ orderId: 'o-1', amountCents: ran }]);
      expect(await refundCounter()).toEqual({ total: ran, n: 1 });
    }
  });

  it('an edit while another call is being counted waits for it, and its requirement counts that call', twoConnections(backend), async () => {
    await sql`DELETE FROM limit_usage WHERE tool_key = 'refund'`.execute(database.db);
    const { agent, calls } = build(limited(), { orderId: 'o-1', amountCents: 10000 });
    const { actionId } = await start(agent);
    const other: Database = await database.reopen();
    try {
      let edit: Promise<EditOutcome> | undefined;
      let settledEarly = false;
      await other.db.transaction().execute(async (trx) => {
        // Another refund of 600.00 is counted (uncommitted): the edit's own read does not see it yet.
        await countLimitUsage(trx, 'other-run/call-1', [{ toolKey: 'refund', measure: 'sum:amountCents@86400000', subject: '*', windowMs: 86_400_000, amount: 60000 }]);
        edit = agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 50000 } });
        void edit.then(() => (settledEarly = true));
        await someoneWaitsForALock(database.db, { on: 'limit_usage', what: 'the edit did not wait for the call being counted' });
        expect(settledEarly).toBe(false);
      });
      // 600.00 + 500.00 is over 1,000.00: the edit needs two approvals, though on its own it needs one.
      const outcome = await edit!;
      expect(outcome).toMatchObject({ outcome: 'approval-recorded', approvals: ['UCAROL'], quorum: 2 });
      if (outcome.outcome !== 'approval-recorded') return;
      expect(outcome.action.limit_hits).toEqual([{ limit: 0, sum: 'amountCents', total: 110000, above: 100000, overMs: 86_400_000 }]);
      expect(await refundCounter()).toEqual({ total: 110000, n: 2 });
      expect(calls).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('two edits of two requests on one counter at once: counted one after the other, so exactly one goes over', twoConnections(backend), async () => {
    const other: Database = await database.reopen();
    try {
      for (let round = 0; round < 5; round++) {
        await sql`DELETE FROM limit_usage WHERE tool_key = 'refund'`.execute(database.db);
        const one = build(limited(), { orderId: 'o-1', amountCents: 100 });
        const two = build(limited(), { orderId: 'o-2', amountCents: 100 });
        const twoOnOther = agentWith({ model: scriptedModel([{ text: 'finished' }]), tools: { refund: one.agent.tools.refund! }, storage: other, policy: definePolicy(limited()) });
        const a = await start(one.agent);
        const b = await start(two.agent);
        const [x, y] = await Promise.all([
          one.agent.editToolCall({ actionId: a.actionId, actor: { userId: 'UCAROL' }, args: { orderId: 'o-1', amountCents: 60000 } }),
          twoOnOther.editToolCall({ actionId: b.actionId, actor: { userId: 'UDAVE' }, args: { orderId: 'o-2', amountCents: 60000 } }),
        ]);
        expect([x.outcome, y.outcome].sort()).toEqual(['approval-recorded', 'approved']);
        for (const o of [x, y]) if (o.outcome === 'approved') await o.stream!.result;
        expect(await refundCounter()).toEqual({ total: 120000, n: 2 });
      }
    } finally {
      await other.close();
    }
  });
});
