import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { createTool } from '../../src/agent/tool.js';
import { ToolCallNotPendingError } from '../../src/agent/errors.js';
import { Agent } from '../../src/agent/agent.js';

const policy = definePolicy({
  tools: {
    delete_record: { requireApproval: true, requireReason: true, risk: 'high', quorum: 2 },
    issue_refund: { requireApproval: true },
  },
});

async function auditOf(database: TestDatabase, runId: string) {
  const rows = await sql<{ event: string; actor: string | null; detail: Record<string, unknown> | null }>`
    SELECT event, actor, detail FROM audit_events WHERE run_id = ${runId} ORDER BY id`.execute(database.db);
  return rows.rows;
}

describeBackends('approvals that require a reason on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  async function pausedDelete() {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'abc' } }] }, { text: 'Deleted.' }]);
    const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, policy });
    const stream = await agent.stream('delete abc', { requester: 'U0REQ' });
    const approval = await stream.suspendPayload;
    expect(await stream.finishReason).toBe('suspended');
    return { agent, calls, runId: stream.runId, toolCallId: approval!.toolCallId };
  }

  it('refuses an approval without a reason (API and decideToolCall), audited as refused, and runs nothing', async () => {
    const { agent, calls, runId } = await pausedDelete();
    await expect(agent.approveToolCall({ runId, actor: { userId: 'U0BOB' } })).rejects.toThrow(ToolCallNotPendingError);
    await expect(agent.approveToolCall({ runId, actor: { userId: 'U0BOB' }, reason: '   ' })).rejects.toThrow(/reason/);
    const { toolCallId } = (await agent.listSuspendedRuns()).runs.find((r) => r.runId === runId)!.toolCalls[0]!;
    const pending = await agent.findRequest((await agent.latestApprovalId(runId, toolCallId))!);
    expect(pending).toMatchObject({ status: 'pending', approvals: [] });
    const refused = (await auditOf(database, runId)).filter((e) => e.event === 'refused');
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatchObject({ actor: 'U0BOB', detail: expect.objectContaining({ decision: 'approve', why: 'reason-required' }) });
    expect(calls).toEqual([]);
  });

  it('records each approver\'s reason on the vote and in its audit event, and the call runs at quorum', async () => {
    const { agent, calls, runId, toolCallId } = await pausedDelete();
    const actionId = await agent.latestApprovalId(runId, toolCallId);
    const first = await agent.decideToolCall({ actionId: actionId!, actor: { userId: 'U0BOB' }, reason: '  Customer asked in ticket 12  ', decision: 'approve' });
    expect(first.outcome).toBe('approval-recorded');
    const noReason = await agent.decideToolCall({ actionId: actionId!, actor: { userId: 'U0CAROL' }, decision: 'approve' });
    expect(noReason).toMatchObject({ outcome: 'not-allowed', why: 'reason-required' });
    const second = await agent.decideToolCall({ actionId: actionId!, actor: { userId: 'U0CAROL' }, reason: 'Checked the record', decision: 'approve' });
    expect(second.outcome).toBe('approved');
    if (second.outcome === 'approved') await second.stream!.result;
    expect(calls).toEqual([{ id: 'abc' }]);
    const row = await agent.findRequest(actionId!);
    expect(row!.approvals.map((a) => [a.userId, a.reason])).toEqual([
      ['U0BOB', 'Customer asked in ticket 12'],
      ['U0CAROL', 'Checked the record'],
    ]);
    const audit = await auditOf(database, runId);
    expect(audit.find((e) => e.event === 'approval-recorded')).toMatchObject({ actor: 'U0BOB', detail: { approvals: 1, quorum: 2, reason: 'Customer asked in ticket 12' } });
    expect(audit.find((e) => e.event === 'approved')).toMatchObject({ actor: 'U0CAROL', detail: { approvals: 2, quorum: 2, reason: 'Checked the record' } });
  });

  it('a reason over 3,000 characters, or one that is not text, is refused with a clear outcome (never cut), audited, and runs nothing', async () => {
    const { agent, calls, runId, toolCallId } = await pausedDelete();
    const actionId = (await agent.latestApprovalId(runId, toolCallId))!;
    const long = await agent.decideToolCall({ actionId, actor: { userId: 'U0BOB' }, reason: 'r'.repeat(3001), decision: 'approve' });
    expect(long).toMatchObject({ outcome: 'not-allowed', why: 'reason-too-long', message: 'A reason may be at most 3,000 characters; this one has 3,001.' });
    const declined = await agent.decideToolCall({ actionId, actor: { userId: 'U0BOB' }, reason: 'd'.repeat(1_000_000), decision: 'decline' });
    expect(declined).toMatchObject({ outcome: 'not-allowed', why: 'reason-too-long' });
    // Plain JavaScript can pass anything: refused as an outcome, not a TypeError.
    const notText = await agent.decideToolCall({ actionId, actor: { userId: 'U0BOB' }, reason: { why: 'x' } as never, decision: 'approve' });
    expect(notText).toMatchObject({ outcome: 'not-allowed', why: 'reason-invalid' });
    await expect(agent.approveToolCall({ runId, actor: { userId: 'U0BOB' }, reason: 'r'.repeat(3001) })).rejects.toThrow(/at most 3,000 characters/);
    await expect(agent.declineToolCall({ runId, actor: { userId: 'U0BOB' }, reason: 'r'.repeat(5000) })).rejects.toThrow(ToolCallNotPendingError);
    expect(await agent.findRequest(actionId)).toMatchObject({ status: 'pending', approvals: [] });
    const refused = (await auditOf(database, runId)).filter((e) => e.event === 'refused').map((e) => (e.detail as { why: string }).why);
    expect(refused).toEqual(['reason-too-long', 'reason-too-long', 'reason-invalid', 'reason-too-long', 'reason-too-long']);

    // Exactly the bound (after trimming) is kept whole.
    const whole = `  ${'k'.repeat(2999)}!  `;
    expect((await agent.decideToolCall({ actionId, actor: { userId: 'U0BOB' }, reason: whole, decision: 'approve' })).outcome).toBe('approval-recorded');
    expect((await agent.findRequest(actionId))!.approvals.map((a) => a.reason)).toEqual([whole.trim()]);
    expect(calls).toEqual([]);
  });

  it('keeps the approval audit detail as it was when no reason is given and none is required', async () => {
    const { tool } = countingTool('issue_refund', { requireApproval: true });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'issue_refund', args: { id: 'o1' } }] }, { text: 'ok' }]);
    const agent = agentWith({ model, tools: { issue_refund: tool }, storage: database, policy });
    const stream = await agent.stream('refund');
    await stream.finishReason;
    await (await agent.approveToolCall({ runId: stream.runId, actor: { userId: 'U0BOB' } })).result;
    const approved = (await auditOf(database, stream.runId)).find((e) => e.event === 'approved');
    expect(approved?.detail).toEqual({ approvals: 1, quorum: 1 });
  });
});

describe('Agent.describeCall', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('pglite');
  });
  afterAll(async () => {
    await database?.close();
  });

  const refund = (describe?: unknown) =>
    createTool({
      id: 'issue_refund',
      description: 'refund',
      inputSchema: z.object({ orderId: z.string().describe('The order id'), amountCents: z.number().int() }),
      ...(describe !== undefined ? { describe: describe as never } : {}),
      execute: async () => 'ok',
    });

  it('gives the tool\'s own description, and the risk from the policy or the tool', () => {
    const tool = refund(({ orderId, amountCents }: { orderId: string; amountCents: number }) => ({ title: `Refund ${amountCents} on ${orderId}`, fields: [{ label: 'Order', value: orderId }] }));
    const agent = agentWith({ model: scriptedModel([]), tools: { issue_refund: tool }, storage: database, policy: definePolicy({ tools: { issue_refund: { requireApproval: true, risk: 'high', requireReason: true } } }) });
    const presented = agent.describeCall({ tool_name: 'issue_refund', args: { orderId: '1042', amountCents: 5 }, path: ['ops'] });
    expect(presented.description).toEqual({ title: 'Refund 5 on 1042', fields: [{ label: 'Order', value: '1042' }] });
    expect(presented).toMatchObject({ risk: 'high', requireReason: true });
    expect(presented.inputSchema?.properties).toHaveProperty('orderId');

    const byTool = refund(() => ({ title: 'Refund', fields: [], risk: 'high' }));
    const lowPolicy = agentWith({ model: scriptedModel([]), tools: { issue_refund: byTool }, storage: database });
    expect(lowPolicy.describeCall({ tool_name: 'issue_refund', args: {}, path: ['ops'] })).toMatchObject({ risk: 'high', requireReason: false });
  });

  it('falls back to the schema (and logs a warning) when describe throws or returns something malformed', () => {
    for (const describe of [
      () => {
        throw new Error('boom');
      },
      () => ({ title: '', fields: [] }),
      () => ({ title: 'x', fields: [{ label: 'a', value: 5 }] }),
      () => ({ title: 'x', fields: [], risk: 'extreme' }),
      () => 'not an object',
    ]) {
      const agent = agentWith({ model: scriptedModel([]), tools: { issue_refund: refund(describe) }, storage: database });
      const warn = vi.spyOn(agent.runtime.logger, 'warn');
      const presented = agent.describeCall({ tool_name: 'issue_refund', args: { orderId: '1', amountCents: 5 }, path: ['ops'] });
      expect(presented.description).toBeUndefined();
      expect(presented.inputSchema?.properties).toHaveProperty('amountCents');
      expect(presented.risk).toBe('low');
      expect(warn).toHaveBeenCalled();
    }
  });

  it('finds tools of sub-agents along the path, and says nothing of a tool the code no longer has', () => {
    const billing = new Agent({ id: 'billing', model: scriptedModel([]), tools: { issue_refund: refund(() => ({ title: 'Billing refund', fields: [] })) } });
    const agent = agentWith({ model: scriptedModel([]), agents: { billing }, storage: database });
    expect(agent.describeCall({ tool_name: 'issue_refund', args: {}, path: ['ops', 'billing'] }).description?.title).toBe('Billing refund');
    expect(agent.describeCall({ tool_name: 'issue_refund', args: {}, path: ['ops'] })).toEqual({ risk: 'low', requireReason: false });
    expect(agent.describeCall({ tool_name: 'constructor', args: {}, path: ['ops'] })).toEqual({ risk: 'low', requireReason: false });
  });

  it('createTool refuses a describe that is not a function', () => {
    expect(() => refund('not a function')).toThrow(/describe must be a function/);
  });
});
