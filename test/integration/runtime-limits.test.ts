import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends, twoConnections } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { agentWith, collect, countingTool } from '../helpers/agents.js';
import { createTool } from '../../src/agent/tool.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { Database } from '../../src/db/database.js';
import type { ApprovalRequest } from '../../src/agent/api-types.js';

const refundPolicy = () =>
  definePolicy({
    tools: {
      issue_refund: {
        requireApproval: true,
        approvers: ['U0FIN1', 'U0FIN2'],
        limits: [{ sum: 'amountCents', by: 'requester', over: '24h', above: 100000, then: { quorum: 2 } }],
      },
    },
  });

function refundTool() {
  const runs: number[] = [];
  const tool = createTool({
    id: 'issue_refund',
    description: 'refund',
    inputSchema: z.object({ amountCents: z.number() }),
    execute: async ({ amountCents }: { amountCents: number }) => {
      runs.push(amountCents);
      return { refunded: amountCents };
    },
  });
  return { tool, runs };
}

/** Resolves once `n` parties have arrived: each model call waits here, so both gates start together. */
function barrier(n: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    arrived += 1;
    if (arrived >= n) open();
    await opened;
  };
}

async function approvalOf(stream: Awaited<ReturnType<ReturnType<typeof agentWith>['stream']>>): Promise<ApprovalRequest | undefined> {
  const chunks = await collect(stream);
  const chunk = chunks.find((c) => c.type === 'tool-call-approval');
  return chunk?.type === 'tool-call-approval' ? chunk.payload : undefined;
}

describeBackends('cumulative limits in the runtime on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('the 21st delete in an hour needs approval; the first 20 ran without', async () => {
    const { tool, calls } = countingTool('delete_record');
    const policy = definePolicy({
      tools: { delete_record: { approvers: ['U0OPS'], limits: [{ count: true, over: '1h', above: 20, then: { requireApproval: true, approvers: ['U0CFO'] } }] } },
    });
    for (let i = 1; i <= 21; i++) {
      const model = scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: `r${i}` } }] }, { text: `deleted r${i}` }]);
      const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, policy });
      const stream = await agent.stream(`delete r${i}`, { requester: `U0USER${i % 3}` });
      const approval = await approvalOf(stream);
      if (i <= 20) {
        expect(approval, `call ${i}`).toBeUndefined();
        expect(await stream.finishReason).toBe('stop');
      } else {
        expect(approval).toMatchObject({ toolName: 'delete_record', args: { id: 'r21' }, approvers: ['U0CFO'] });
        expect(await stream.finishReason).toBe('suspended');
        // The limit's approvers decide it, not the entry's: the stored hit is applied when deciding.
        const refused = await agent.decideToolCall({ actionId: approval!.actionId, actor: { userId: 'U0OPS' }, decision: 'approve' });
        expect(refused.outcome).toBe('not-allowed');
        const audit = await sql<{ detail: unknown }>`
          SELECT detail FROM audit_events WHERE event = 'requested' AND run_id = ${stream.runId}`.execute(database.db);
        expect(audit.rows[0]!.detail).toEqual({ limits: [{ limit: 0, count: true, total: 21, above: 20, overMs: 3_600_000 }] });
        const approved = await agent.decideToolCall({ actionId: approval!.actionId, actor: { userId: 'U0CFO' }, decision: 'approve' });
        expect(approved.outcome).toBe('approved');
        if (approved.outcome === 'approved') expect(await approved.stream!.text).toBe('deleted r21');
      }
    }
    // 20 ran without approval, the 21st once approved (and was not counted again when it ran).
    expect(calls).toHaveLength(21);
    const counter = await sql<{ n: number }>`SELECT cardinality(at) AS n FROM limit_usage WHERE tool_key = 'delete_record'`.execute(database.db);
    expect(Number(counter.rows[0]!.n)).toBe(21);
  });

  it('a refund split into small ones hits the limit: the one that goes over needs 2 approvals, and two approvers', async () => {
    const { tool } = refundTool();
    const policy = refundPolicy();
    const requester = `U0SPLIT${backend === 'postgres' ? 'P' : 'L'}`;
    const amounts = [40000, 40000, 30000];
    const approvals: ApprovalRequest[] = [];
    for (const amountCents of amounts) {
      const model = scriptedModel([{ toolCalls: [{ toolName: 'issue_refund', args: { amountCents } }] }, { text: 'done' }]);
      const agent = agentWith({ model, tools: { issue_refund: tool }, storage: database, policy });
      const stream = await agent.stream('refund', { requester });
      const approval = (await approvalOf(stream))!;
      approvals.push(approval);
      if (approval.quorum === 2) {
        const one = await agent.decideToolCall({ actionId: approval.actionId, actor: { userId: 'U0FIN1' }, decision: 'approve' });
        expect(one.outcome).toBe('approval-recorded');
        const row = await sql<{ status: string; approvals: unknown[]; limit_hits: unknown }>`
          SELECT status, approvals, limit_hits FROM pending_actions WHERE id = ${approval.actionId}`.execute(database.db);
        expect(row.rows[0]).toMatchObject({ status: 'pending', limit_hits: [{ limit: 0, sum: 'amountCents', requester, total: 110000, above: 100000 }] });
        const decided = await agent.decideToolCall({ actionId: approval.actionId, actor: { userId: 'U0FIN2' }, decision: 'approve' });
        expect(decided.outcome).toBe('approved');
      } else {
        await agent.decideToolCall({ actionId: approval.actionId, actor: { userId: 'U0FIN1' }, decision: 'approve' });
      }
    }
    expect(approvals.map((a) => a.quorum)).toEqual([1, 1, 2]);
    expect(approvals.map((a) => a.limitHits?.[0]?.total)).toEqual([undefined, undefined, 110000]);
  });

  it('two concurrent 60000 refunds under a 100000/24h limit: exactly one needs quorum 2, never neither', twoConnections(backend), async () => {
    const other: Database = await database.reopen();
    try {
      const policy = refundPolicy();
      for (let round = 0; round < 5; round++) {
        const requester = `U0RACE${round}`;
        const arrive = barrier(2);
        const start = (storage: Database) => {
          const { tool } = refundTool();
          // The barrier sits in the model call, right before the gate: both calls reach it together.
          const gated = scriptedModel([{ toolCalls: [{ toolName: 'issue_refund', args: { amountCents: 60000 } }] }, { text: 'done' }]);
          const doStream = gated.doStream.bind(gated);
          gated.doStream = async (options) => {
            await arrive();
            return doStream(options);
          };
          const agent = agentWith({ model: gated, tools: { issue_refund: tool }, storage, policy });
          return agent.stream('refund 600', { requester }).then(approvalOf);
        };
        const [a, b] = await Promise.all([start(database), start(other)]);
        expect([a!.quorum, b!.quorum].sort()).toEqual([1, 2]);
      }
    } finally {
      await other.close();
    }
  });
});
