import { sql } from 'kysely';
import type { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel, lastToolResults, type ScriptStep } from '../helpers/scripted-model.js';
import { collect } from '../helpers/agents.js';
import { ResumeValidationError, ToolCallNotPendingError } from '../../src/agent/errors.js';
import type { AgentChunk, ApprovalRequest, SuspensionRequest } from '../../src/agent/api-types.js';
import { createDemoAgents } from '../../src/demo/create-demo-agents.js';
import { demoPolicy } from '../../src/demo/demo-policy.js';
import { createDemoTables, demoDb, type DemoDb } from '../../src/demo/demo-tables.js';
import { seedDemoData, type SeedResult } from '../../src/demo/seed-demo-data.js';
import { createDeleteRecordTool } from '../../src/demo/tools/delete-record.js';
import { createDeployServiceTool } from '../../src/demo/tools/deploy-service.js';
import { createIssueRefundTool } from '../../src/demo/tools/issue-refund.js';
import { createLookupRecordTool } from '../../src/demo/tools/lookup-record.js';

const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';

const outsideRun = { requestContext: new Map<string, unknown>() };

function approvals(chunks: AgentChunk[]): ApprovalRequest[] {
  return chunks.flatMap((c) => (c.type === 'tool-call-approval' ? [c.payload] : []));
}

function suspensions(chunks: AgentChunk[]): SuspensionRequest[] {
  return chunks.flatMap((c) => (c.type === 'tool-call-suspended' ? [c.payload] : []));
}

/**
 * Results a sub-agent's tools produced never reach the top stream; they only
 * show up in the prompt of the sub-agent's next model call.
 */
function toolResultsFor(model: MockLanguageModelV3, toolName: string) {
  return model.doStreamCalls
    .flatMap((call) => call.prompt)
    .flatMap((m) => (m.role === 'tool' ? m.content : []))
    .filter((part) => part.type === 'tool-result' && part.toolName === toolName);
}

/** A refund request that goes ops → billing → issue_refund, then both agents answer. */
function refundScript(orderId: string, amountCents: number, reason = 'damaged in transit'): ScriptStep[] {
  return [
    { toolCalls: [{ toolName: 'agent-billing', args: { prompt: `Refund ${amountCents} cents on order ${orderId}: ${reason}` } }] },
    { toolCalls: [{ toolName: 'issue_refund', args: { orderId, amountCents, reason } }] },
    { text: 'Refund handled.' },
    { text: 'Billing has handled the refund.' },
  ];
}

describeBackends('demo agents on %s', (backend) => {
  let database: TestDatabase;
  let demo: DemoDb;
  let firstSeed: SeedResult;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    demo = demoDb(database.db);
    await createDemoTables(database.db);
    firstSeed = await seedDemoData(database.db);
  });
  afterAll(async () => {
    await database?.close();
  });

  function agents(steps: ScriptStep[]) {
    const model = scriptedModel(steps);
    const { ops } = createDemoAgents({ db: database.db, model, storage: database });
    return { ops, model };
  }

  const record = (id: string) =>
    demo.selectFrom('demo_records').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const order = (id: string) => demo.selectFrom('demo_orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const refundsOf = (orderId: string) =>
    demo.selectFrom('demo_refunds').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  const deploymentsOf = (service: string) =>
    demo.selectFrom('demo_deployments').selectAll().where('service', '=', service).orderBy('id').execute();

  it('seeding is idempotent and never overwrites what approved calls changed', async () => {
    expect(firstSeed).toEqual({ records: 3, orders: 3 });
    await demo.updateTable('demo_orders').set({ refunded_cents: 700 }).where('id', '=', '1044').execute();
    try {
      expect(await seedDemoData(database.db)).toEqual({ records: 0, orders: 0 });
      const ids = await demo.selectFrom('demo_records').select('id').orderBy('id').execute();
      expect(ids.map((r) => r.id)).toEqual(['abc-123', 'def-456', 'ghi-789']);
      const orders = await demo.selectFrom('demo_orders').select(['id', 'total_cents']).orderBy('id').execute();
      expect(orders.map((o) => o.id)).toEqual(['1042', '1043', '1044']);
      expect(orders.find((o) => o.id === '1042')?.total_cents).toBe(100_000_000);
      expect(orders.find((o) => o.id === '1043')?.total_cents).toBe(250_000);
      expect((await order('1044')).refunded_cents).toBe(700);
    } finally {
      await demo.updateTable('demo_orders').set({ refunded_cents: 0 }).where('id', '=', '1044').execute();
    }
  });

  it('a database seeded with the smaller orders of before gets the seeded totals, its refunds kept', async () => {
    await demo.updateTable('demo_orders').set({ total_cents: 5_000, refunded_cents: 2_500 }).where('id', '=', '1042').execute();
    try {
      expect(await seedDemoData(database.db)).toEqual({ records: 0, orders: 1 });
      expect(await order('1042')).toMatchObject({ total_cents: 100_000_000, refunded_cents: 2_500 });
    } finally {
      await demo.updateTable('demo_orders').set({ refunded_cents: 0 }).where('id', '=', '1042').execute();
    }
  });

  it('lookup_record returns the record, or a clear not-found result', async () => {
    const { ops } = agents([
      {
        toolCalls: [
          { toolName: 'lookup_record', args: { id: 'def-456' } },
          { toolName: 'lookup_record', args: { id: 'zzz-000' } },
        ],
      },
      { text: 'def-456 is the onboarding checklist; zzz-000 does not exist.' },
    ]);
    const stream = await ops.stream('look up def-456 and zzz-000');
    const chunks = await collect(stream);
    const results = chunks.flatMap((c) => (c.type === 'tool-result' ? [c.payload] : []));
    expect(results.map((r) => r.isError)).toEqual([false, false]);
    expect(results[0]!.result).toEqual({
      found: true,
      record: { id: 'def-456', title: 'Onboarding checklist draft', owner: 'bob', deleted: false, deletedAt: null },
    });
    expect(results[1]!.result).toEqual({ found: false, message: 'No record with id "zzz-000".' });
    expect(await stream.finishReason).toBe('stop');
  });

  it('delete_record waits for approval; the requester may approve it and the row is soft-deleted', async () => {
    const { ops } = agents([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'abc-123' } }] },
      { text: 'Deleted abc-123.' },
    ]);
    const stream = await ops.stream('delete abc-123', { requester: REQUESTER });
    const [approval] = approvals(await collect(stream));
    expect(approval).toMatchObject({ toolName: 'delete_record', args: { id: 'abc-123' }, path: ['ops'], quorum: 1 });
    expect(await stream.finishReason).toBe('suspended');
    expect((await record('abc-123')).deleted_at).toBeNull();

    const resumed = await ops.approveToolCall({ runId: stream.runId, actor: { userId: REQUESTER } });
    const chunks = await collect(resumed);
    expect(await resumed.text).toBe('Deleted abc-123.');
    expect(chunks.find((c) => c.type === 'tool-result')?.payload).toMatchObject({
      toolName: 'delete_record',
      isError: false,
      result: { deleted: true, id: 'abc-123' },
    });
    expect((await record('abc-123')).deleted_at).toBeInstanceOf(Date);
  });

  it('a declined delete_record leaves the row alone and the model hears why', async () => {
    const { ops, model } = agents([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'ghi-789' } }] },
      { text: 'OK, I left ghi-789 alone.' },
    ]);
    const first = await ops.generate('delete ghi-789', { requester: REQUESTER });
    expect(first.pending.map((p) => p.toolName)).toEqual(['delete_record']);

    const declined = await ops.declineToolCallGenerate({ runId: first.runId, actor: { userId: ALICE }, reason: 'still in use' });
    expect(declined).toMatchObject({ finishReason: 'stop', text: 'OK, I left ghi-789 alone.' });
    expect((await record('ghi-789')).deleted_at).toBeNull();
    expect(lastToolResults(model)[0]).toMatchObject({
      output: { type: 'execution-denied', reason: `Tool call declined by ${ALICE}; delete_record did not run. Their reason, in their own words: "still in use".` },
    });
  });

  it('the record tools report not-found and already-deleted as results', async () => {
    await demo.insertInto('demo_records').values({ id: 'tmp-001', title: 'Scratch', owner: 'dave' }).execute();
    const lookup = createLookupRecordTool({ db: database.db });
    const remove = createDeleteRecordTool({ db: database.db });

    expect(await remove.execute({ id: 'tmp-001' }, outsideRun)).toMatchObject({ deleted: true, id: 'tmp-001', title: 'Scratch' });
    expect(await remove.execute({ id: 'tmp-001' }, outsideRun)).toMatchObject({
      deleted: false,
      reason: 'already-deleted',
      message: expect.stringMatching(/already deleted/),
    });
    expect(await remove.execute({ id: 'nope-1' }, outsideRun)).toMatchObject({ deleted: false, reason: 'not-found' });
    expect(await lookup.execute({ id: 'tmp-001' }, outsideRun)).toMatchObject({
      found: true,
      record: { deleted: true, deletedAt: expect.any(String) },
    });
  });

  it('a staging deploy happens at once', async () => {
    const { ops } = agents([
      { toolCalls: [{ toolName: 'deploy_service', args: { service: 'stage-api', environment: 'staging', version: 'v1.0.0' } }] },
      { text: 'Deployed to staging.' },
    ]);
    const stream = await ops.stream('deploy stage-api v1.0.0 to staging');
    const chunks = await collect(stream);
    expect(await stream.finishReason).toBe('stop');
    expect(suspensions(chunks)).toEqual([]);
    expect(chunks.find((c) => c.type === 'tool-result')?.payload).toMatchObject({
      isError: false,
      result: { deployed: true, service: 'stage-api', environment: 'staging', version: 'v1.0.0' },
    });
    expect(await deploymentsOf('stage-api')).toEqual([
      expect.objectContaining({ environment: 'staging', version: 'v1.0.0', confirmed_by: null }),
    ]);
  });

  it('a production deploy waits for someone other than the requester, asks for confirmation, refuses a malformed answer, and deploys once confirmed', async () => {
    const { ops } = agents([
      { toolCalls: [{ toolName: 'deploy_service', args: { service: 'prod-api', environment: 'production', version: 'v2.0.0' } }] },
      { text: 'prod-api v2.0.0 is live.' },
    ]);
    const stream = await ops.stream('ship prod-api v2.0.0 to production', { requester: REQUESTER });
    const [approval] = approvals(await collect(stream));
    expect(approval).toMatchObject({ toolName: 'deploy_service', path: ['ops'], args: { environment: 'production' }, requester: REQUESTER });
    const self = await ops.decideToolCall({ runId: stream.runId, decision: 'approve', actor: { userId: REQUESTER } });
    expect(self).toMatchObject({ outcome: 'not-allowed', why: 'self-approval' });
    expect(await deploymentsOf('prod-api')).toEqual([]);

    const approved = await ops.approveToolCall({ runId: stream.runId, actor: { userId: ALICE } });
    const [suspension] = suspensions(await collect(approved));
    expect(suspension).toMatchObject({
      toolName: 'deploy_service',
      path: ['ops'],
      suspendPayload: { message: 'Deploy prod-api v2.0.0 to production?' },
    });
    expect(await approved.finishReason).toBe('suspended');
    expect(await deploymentsOf('prod-api')).toEqual([]);

    const refused = await ops.resumeStream({ confirmed: 'yes' }, { runId: stream.runId, actor: { userId: REQUESTER } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ResumeValidationError);
    expect(await deploymentsOf('prod-api')).toEqual([]);
    const { runs } = await ops.listSuspendedRuns();
    expect(runs.find((r) => r.runId === stream.runId)?.toolCalls).toHaveLength(1);

    const resumed = await ops.resumeStream({ confirmed: true }, { runId: stream.runId, actor: { userId: REQUESTER } });
    expect(await resumed.text).toBe('prod-api v2.0.0 is live.');
    expect(await deploymentsOf('prod-api')).toEqual([
      expect.objectContaining({ environment: 'production', version: 'v2.0.0' }),
    ]);
  });

  it('a production deploy answered "no" is cancelled and nothing is deployed', async () => {
    const { ops, model } = agents([
      { toolCalls: [{ toolName: 'deploy_service', args: { service: 'prod-web', environment: 'production', version: 'v9' } }] },
      { text: 'Cancelled.' },
    ]);
    const first = await ops.generate('deploy prod-web v9 to production');
    expect(first.pending).toMatchObject([{ kind: 'approval', toolName: 'deploy_service' }]);
    const approved = await ops.approveToolCallGenerate({ runId: first.runId, actor: { userId: ALICE } });
    expect(approved.suspendPayload).toMatchObject({ kind: 'suspension', toolName: 'deploy_service' });
    const resumed = await ops.resumeGenerate({ confirmed: false }, { runId: first.runId });
    expect(resumed.text).toBe('Cancelled.');
    expect(lastToolResults(model)[0]).toMatchObject({
      output: { type: 'json', value: { deployed: false, status: 'cancelled', message: 'deployment cancelled' } },
    });
    expect(await deploymentsOf('prod-web')).toEqual([]);
  });

  it('a reply in the thread answers a pending deploy confirmation', async () => {
    const { ops } = agents([
      { toolCalls: [{ toolName: 'deploy_service', args: { service: 'thread-api', environment: 'production', version: 'v3' } }] },
      { text: 'Deployed thread-api v3.' },
    ]);
    const thread = { threadId: 'C0DEMO:1700000000.000100', resourceId: 'C0DEMO', requester: REQUESTER };
    const first = await ops.generate('deploy thread-api v3 to production', thread);
    expect(first.pending).toMatchObject([{ kind: 'approval', toolName: 'deploy_service' }]);
    const approved = await ops.approveToolCallGenerate({ runId: first.runId, actor: { userId: ALICE } });
    expect(approved.finishReason).toBe('suspended');

    const reply = await ops.generate('yes', thread);
    expect(reply).toMatchObject({ finishReason: 'stop', text: 'Deployed thread-api v3.' });
    expect(await deploymentsOf('thread-api')).toHaveLength(1);
  });

  it('a production deploy called outside a run is not made', async () => {
    const deploy = createDeployServiceTool({ db: database.db });
    const result = await deploy.execute({ service: 'code-api', environment: 'production', version: 'v1' }, outsideRun);
    expect(result).toMatchObject({ deployed: false, status: 'needs-confirmation' });
    expect(await deploymentsOf('code-api')).toEqual([]);
  });

  it("a refund through billing surfaces at the top and runs once another person approves", async () => {
    const { ops } = agents(refundScript('1042', 1_250));
    const stream = await ops.stream('refund $12.50 on order 1042', { requester: REQUESTER });
    const [approval] = approvals(await collect(stream));
    expect(approval).toMatchObject({
      toolName: 'issue_refund',
      path: ['ops', 'billing'],
      args: { orderId: '1042', amountCents: 1_250, reason: 'damaged in transit' },
      requester: REQUESTER,
      quorum: 1,
      policyVersion: demoPolicy.version,
    });
    expect(approval!.runId).not.toBe(stream.runId);
    expect(await refundsOf('1042')).toEqual([]);

    const decision = await ops.decideToolCall({ runId: stream.runId, decision: 'approve', actor: { userId: ALICE } });
    expect(decision.outcome).toBe('approved');
    const resumed = decision.outcome === 'approved' ? decision.stream! : undefined;
    expect(await resumed!.text).toBe('Billing has handled the refund.');
    expect(await refundsOf('1042')).toEqual([
      expect.objectContaining({ amount_cents: 1_250, reason: 'damaged in transit' }),
    ]);
    expect((await order('1042')).refunded_cents).toBe(1_250);
  });

  it("the requester cannot approve their own refund, though they may withdraw it", async () => {
    const { ops } = agents(refundScript('1044', 500));
    const first = await ops.generate('refund $5 on order 1044', { requester: REQUESTER });
    expect(first.pending).toMatchObject([{ toolName: 'issue_refund', path: ['ops', 'billing'] }]);

    const refused = await ops.decideToolCall({ runId: first.runId, decision: 'approve', actor: { userId: REQUESTER } });
    expect(refused).toMatchObject({ outcome: 'not-allowed', why: 'self-approval', action: { requester: REQUESTER, status: 'pending' } });
    const thrown = await ops.approveToolCall({ runId: first.runId, actor: { userId: REQUESTER } }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ToolCallNotPendingError);
    expect(await refundsOf('1044')).toEqual([]);

    const withdrawn = await ops.declineToolCallGenerate({ runId: first.runId, actor: { userId: REQUESTER } });
    expect(withdrawn.finishReason).toBe('stop');
    expect(await refundsOf('1044')).toEqual([]);
    expect((await order('1044')).refunded_cents).toBe(0);
  });

  it('a refund above $1,000 needs two different approvers', async () => {
    const { ops } = agents(refundScript('1043', 150_000));
    const stream = await ops.stream('refund $1,500 on order 1043', { requester: REQUESTER });
    const [approval] = approvals(await collect(stream));
    expect(approval).toMatchObject({ toolName: 'issue_refund', quorum: 2 });

    const one = await ops.decideToolCall({ runId: stream.runId, decision: 'approve', actor: { userId: ALICE } });
    expect(one).toMatchObject({ outcome: 'approval-recorded', approvals: [ALICE], quorum: 2 });
    const again = await ops.decideToolCall({ runId: stream.runId, decision: 'approve', actor: { userId: ALICE } });
    expect(again).toMatchObject({ outcome: 'approval-recorded', alreadyCounted: true });
    expect(await refundsOf('1043')).toEqual([]);

    const two = await ops.decideToolCall({ runId: stream.runId, decision: 'approve', actor: { userId: BOB } });
    expect(two.outcome).toBe('approved');
    if (two.outcome !== 'approved') return;
    expect(two.action.approvals.map((a) => a.userId)).toEqual([ALICE, BOB]);
    expect(await two.stream!.finishReason).toBe('stop');
    expect(await refundsOf('1043')).toEqual([expect.objectContaining({ amount_cents: 150_000 })]);
    expect((await order('1043')).refunded_cents).toBe(150_000);
  });

  it('an approved over-refund becomes a tool error in words and changes nothing', async () => {
    const before = await order('1044');
    const refundsBefore = await refundsOf('1044');
    const { ops, model } = agents(refundScript('1044', before.total_cents - before.refunded_cents + 1));
    const first = await ops.generate('refund too much on 1044', { requester: REQUESTER });
    const done = await ops.approveToolCallGenerate({ runId: first.runId, actor: { userId: ALICE } });
    expect(done.finishReason).toBe('stop');

    const [result] = toolResultsFor(model, 'issue_refund');
    expect(result).toMatchObject({ output: { type: 'error-text', value: expect.stringContaining('Order 1044 (Initech) has only $125.00 left to refund of its $125.00, so $125.01 was not refunded.') } });
    expect(await order('1044')).toEqual(before);
    expect(await refundsOf('1044')).toEqual(refundsBefore);
  });

  it('issue_refund refuses unknown orders and over-refunds when called directly', async () => {
    const refund = createIssueRefundTool({ db: database.db });
    // Said in money and names, never cents: the model passes the words on to people.
    await expect(refund.execute({ orderId: '9999', amountCents: 100 }, outsideRun)).rejects.toThrow('There is no order 9999, so nothing was refunded.');
    await expect(refund.execute({ orderId: '1044', amountCents: 12_501 }, outsideRun)).rejects.toThrow(
      'Order 1044 (Initech) has only $125.00 left to refund of its $125.00, so $125.01 was not refunded.',
    );
    expect(await refund.execute({ orderId: '1044', amountCents: 12_500 }, outsideRun)).toMatchObject({ remainingCents: 0 });
    await expect(refund.execute({ orderId: '1044', amountCents: 100 }, outsideRun)).rejects.toThrow(
      'Order 1044 (Initech) is already refunded in full ($125.00), so $1.00 was not refunded.',
    );
    await sql`DELETE FROM demo_refunds WHERE order_id = '1044'`.execute(database.db);
    await demo.updateTable('demo_orders').set({ refunded_cents: 0 }).where('id', '=', '1044').execute();
    expect(await refundsOf('9999')).toEqual([]);
    expect(refund.inputSchema.safeParse({ orderId: '1044', amountCents: 0 }).success).toBe(false);
    expect(refund.inputSchema.safeParse({ orderId: '1044', amountCents: 1.5 }).success).toBe(false);
  });

  it('the database itself refuses a refund total above the order total', async () => {
    const attempt = sql`UPDATE demo_orders SET refunded_cents = total_cents + 1 WHERE id = '1044'`.execute(database.db);
    await expect(attempt).rejects.toThrow(/check constraint/);
  });
});
