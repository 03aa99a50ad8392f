import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { agentWith, collect } from '../helpers/agents.js';
import { createTool, type Tool, type ToolDefinition } from '../../src/agent/tool.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { consumeGrant } from '../../src/db/grants.js';
import { fingerprint } from '../../src/approvals/fingerprint.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { STATED_REASON_FIELD } from '../../src/agent/stated-reason.js';
import type { AgentChunk, ApprovalRequest } from '../../src/agent/api-types.js';

/**
 * Records kept in memory, each with a version bumped on every change: `set_status` previews the
 * record as it is and as it would be, its state digest being the version.
 */
function recordsTool(options: Partial<Pick<ToolDefinition, 'onPreviewError'>> & { failPreview?: () => boolean; badPreview?: boolean } = {}) {
  const records = new Map([['abc', { status: 'active', version: 1 }]]);
  const previews: string[] = [];
  const executed: Array<{ id: string; status: string }> = [];
  const tool = createTool({
    id: 'set_status',
    description: 'Set the status of a record.',
    inputSchema: z.object({ id: z.string(), status: z.enum(['active', 'archived']) }),
    requireApproval: true,
    ...(options.onPreviewError ? { onPreviewError: options.onPreviewError } : {}),
    preview: async ({ id, status }, context) => {
      previews.push(`${id}@${context.toolCallId}`);
      if (options.failPreview?.()) throw new Error('records service unavailable');
      if (options.badPreview) return { fields: [{ label: 'Record', value: id }] } as never;
      const record = records.get(id);
      if (!record) throw new Error(`no record ${id}`);
      return {
        fields: [{ label: 'Record', value: `${id} (version ${record.version})` }],
        diff: [{ label: 'Status', before: record.status, after: status }],
        stateDigest: `v${record.version}`,
      };
    },
    execute: async ({ id, status }) => {
      executed.push({ id, status });
      const record = records.get(id)!;
      records.set(id, { status, version: record.version + 1 });
      return { id, status };
    },
  });
  const touch = (id: string) => {
    const record = records.get(id)!;
    records.set(id, { ...record, version: record.version + 1 });
  };
  return { tool, records, previews, executed, touch };
}

const approvalOf = (chunks: AgentChunk[]) => chunks.find((c) => c.type === 'tool-call-approval')?.payload as ApprovalRequest | undefined;

describeBackends('previews bound to state (%s)', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  function setUp(steps: ScriptStep[], r = recordsTool(), extra: Parameters<typeof agentWith>[0] = { model: scriptedModel([]) }) {
    const model = scriptedModel(steps);
    const agent = agentWith({ ...extra, model, tools: { set_status: r.tool }, storage: database });
    return { ...r, agent, model };
  }

  it('the preview is kept with the request and on its chunk; unchanged state: the call runs once, its preview run twice, the grant carrying the digest', async () => {
    const t = setUp([{ toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived', [STATED_REASON_FIELD]: 'The ticket is closed.' } }] }, { text: 'Archived.' }]);
    const stream = await t.agent.stream('archive abc', { requester: 'U0REQ' });
    const approval = approvalOf(await collect(stream))!;
    const preview = { fields: [{ label: 'Record', value: 'abc (version 1)' }], diff: [{ label: 'Status', before: 'active', after: 'archived' }], stateDigest: 'v1' };
    expect(approval.preview).toEqual(preview);
    expect(approval.statedReason).toBe('The ticket is closed.');
    const row = (await t.agent.findRequest(approval.actionId))!;
    expect(row.preview).toEqual(preview);
    expect(t.agent.bindingOf(row)).toEqual({ statedReason: 'The ticket is closed.', preview });
    const requested = (await listAuditEvents(database.db, { runId: stream.runId })).find((e) => e.event === 'requested')!;
    expect(requested.detail).toMatchObject({ stateDigest: 'v1', statedReason: 'The ticket is closed.' });
    expect(t.previews).toHaveLength(1);
    expect(t.executed).toEqual([]);

    const done = await t.agent.approveToolCallGenerate({ runId: stream.runId, actor: { userId: 'U0ALICE' } });
    expect(done.text).toBe('Archived.');
    expect(t.executed).toEqual([{ id: 'abc', status: 'archived' }]);
    expect(t.previews).toHaveLength(2);
    const grant = await sql<{ state_digest: string; consumed_at: Date | null }>`SELECT state_digest, consumed_at FROM approval_grants WHERE action_id = ${approval.actionId}`.execute(database.db);
    expect(grant.rows).toEqual([{ state_digest: 'v1', consumed_at: expect.any(Date) }]);
  });

  it('the record changed between approval and execute: the call does not run and is asked again with the new preview; approved again, it runs', async () => {
    const t = setUp([{ toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived', [STATED_REASON_FIELD]: 'closed' } }] }, { text: 'Archived.' }]);
    const first = await t.agent.stream('archive abc', { requester: 'U0REQ' });
    const asked = approvalOf(await collect(first))!;
    t.touch('abc'); // someone else changed the record after the card was drawn
    const approved = await t.agent.approveToolCall({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    const chunks = await collect(approved);
    expect(t.executed).toEqual([]);
    const again = approvalOf(chunks)!;
    expect(again.actionId).not.toBe(asked.actionId);
    expect(again.toolCallId).toBe(asked.toolCallId);
    expect(again.askedAgain).toEqual({ fromActionId: asked.actionId, why: 'state-changed' });
    expect(again.preview).toMatchObject({ fields: [{ value: 'abc (version 2)' }], stateDigest: 'v2' });
    expect(again.statedReason).toBe('closed');
    expect(await approved.finishReason).toBe('suspended');
    const audit = await listAuditEvents(database.db, { runId: first.runId });
    expect(audit.map((e) => e.event)).toEqual(['requested', 'approved', 'consumed', 'superseded', 'requested']);
    expect(audit[3]!.detail).toMatchObject({ why: 'state-changed', actionId: asked.actionId, reason: 'the state the call acts on changed since it was approved; asked again' });
    expect(audit[4]!.detail).toMatchObject({ stateDigest: 'v2', askedAgain: { fromActionId: asked.actionId, why: 'state-changed' } });

    const done = await t.agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    expect(done.text).toBe('Archived.');
    expect(t.executed).toEqual([{ id: 'abc', status: 'archived' }]);
    // When asked, right before the first approval's call (the new request's preview), right before the second's.
    expect(t.previews).toHaveLength(3);
  });

  it('a grant not spent by the vote is consumed only for the digest it was written with', async () => {
    // Two gated calls in one step: the first approval does not lease the run, so its grant is consumed when the run goes on.
    const t = setUp([
      { toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived' } }, { toolName: 'set_status', args: { id: 'abc', status: 'active' } }] },
      { text: 'ok' },
    ]);
    const first = await t.agent.generate('flip abc', { requester: 'U0REQ' });
    const [a, b] = first.pending;
    await t.agent.approveToolCall({ runId: first.runId, toolCallId: a!.toolCallId, actor: { userId: 'U0ALICE' } });
    const aRow = (await t.agent.findRequest((await t.agent.latestApprovalId(first.runId, a!.toolCallId))!))!;
    const check = { runId: first.runId, toolCallId: a!.toolCallId, toolName: 'set_status', fingerprint: fingerprint('set_status', a!.args), policyVersion: aRow.policy_version! };
    expect(await consumeGrant(database.db, { ...check, stateDigest: 'v9' })).toEqual({ ok: false });
    expect(await consumeGrant(database.db, { ...check, stateDigest: null })).toEqual({ ok: false });
    const paused = await t.agent.approveToolCallGenerate({ runId: first.runId, toolCallId: b!.toolCallId, actor: { userId: 'U0ALICE' } });
    // The first runs at v1 and makes it v2, so the second, approved at v1 too, is asked again.
    expect(t.executed).toEqual([{ id: 'abc', status: 'archived' }]);
    expect(paused.finishReason).toBe('suspended');
    const bRow = (await t.agent.findRequest((await t.agent.latestApprovalId(first.runId, b!.toolCallId))!))!;
    expect(t.agent.bindingOf(bRow)).toMatchObject({ askedAgain: { why: 'state-changed' }, preview: { stateDigest: 'v2' } });
    const done = await t.agent.approveToolCallGenerate({ runId: first.runId, toolCallId: b!.toolCallId, actor: { userId: 'U0ALICE' } });
    expect(done.text).toBe('ok');
    expect(t.executed).toEqual([{ id: 'abc', status: 'archived' }, { id: 'abc', status: 'active' }]);
  });

  it('a preview that fails when asked: no card by default, the model told; with onPreviewError "ask", a card that says so', async () => {
    const refusing = setUp([{ toolCalls: [{ toolName: 'set_status', args: { id: 'nope', status: 'archived' } }] }, { text: 'Could not.' }]);
    const result = await refusing.agent.generate('archive nope', { requester: 'U0REQ' });
    expect(result.finishReason).toBe('stop');
    expect((await refusing.agent.listSuspendedRuns()).runs.filter((r) => r.runId === result.runId)).toEqual([]);
    expect(lastToolResults(refusing.model)[0]).toMatchObject({
      output: { type: 'error-text', value: 'Tool set_status did not run: its preview failed, so nobody was asked to approve it (no record nope).' },
    });
    expect((await listAuditEvents(database.db, { runId: result.runId })).map((e) => [e.event, e.detail])).toEqual([['blocked', { reason: 'preview failed', error: 'no record nope' }]]);

    const malformed = setUp([{ toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived' } }] }, { text: 'Could not.' }], recordsTool({ badPreview: true }));
    await malformed.agent.generate('archive abc', { requester: 'U0REQ' });
    expect(lastToolResults(malformed.model)[0]).toMatchObject({ output: { value: expect.stringContaining('the preview returned a malformed result: stateDigest') } });

    const asking = setUp([{ toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived' } }] }, { text: 'Archived.' }], recordsTool({ onPreviewError: 'ask', failPreview: () => true }));
    const paused = await asking.agent.stream('archive abc', { requester: 'U0REQ' });
    const approval = approvalOf(await collect(paused))!;
    expect(approval.preview).toEqual({ failed: 'records service unavailable' });
    // Approved with the state unknown, the preview failing again: it runs, as approved.
    await asking.agent.approveToolCallGenerate({ runId: paused.runId, actor: { userId: 'U0ALICE' } });
    expect(asking.executed).toEqual([{ id: 'abc', status: 'archived' }]);
  });

  it('onPreviewError "ask": approved with the preview failing, it works before the call runs: asked again with it', async () => {
    let failing = true;
    const t = setUp([{ toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived' } }] }, { text: 'Archived.' }], recordsTool({ onPreviewError: 'ask', failPreview: () => failing }));
    const first = await t.agent.generate('archive abc', { requester: 'U0REQ' });
    failing = false;
    const again = approvalOf(await collect(await t.agent.approveToolCall({ runId: first.runId, actor: { userId: 'U0ALICE' } })))!;
    expect(again.askedAgain).toMatchObject({ why: 'not-previewed' });
    expect(again.preview).toMatchObject({ stateDigest: 'v1' });
    expect(t.executed).toEqual([]);
    // And the other way round: approved with a preview, failing right before it runs.
    failing = true;
    const third = approvalOf(await collect(await t.agent.approveToolCall({ runId: first.runId, actor: { userId: 'U0ALICE' } })))!;
    expect(third.askedAgain).toMatchObject({ fromActionId: again.actionId, why: 'preview-failed' });
    expect(third.preview).toEqual({ failed: 'records service unavailable' });
    expect(t.executed).toEqual([]);
  });

  it('a preview that fails right before an approved call runs (refuse): the call does not run, blocked, the model told', async () => {
    let failing = false;
    const t = setUp([{ toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived' } }] }, { text: 'Not done.' }], recordsTool({ failPreview: () => failing }));
    const first = await t.agent.generate('archive abc', { requester: 'U0REQ' });
    failing = true;
    const stream = await t.agent.approveToolCall({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    const chunks = await collect(stream);
    expect(chunks.some((c) => c.type === 'tool-call-blocked')).toBe(true);
    expect(await stream.text).toBe('Not done.');
    expect(t.executed).toEqual([]);
    expect(lastToolResults(t.model)[0]).toMatchObject({
      output: { type: 'error-text', value: 'Tool set_status did not run: its preview failed right before it was to run, so the state it was approved for could not be checked (records service unavailable).' },
    });
    const events = await listAuditEvents(database.db, { runId: first.runId });
    expect(events.map((e) => e.event)).toEqual(['requested', 'approved', 'consumed', 'blocked']);
    expect(events[3]!.detail).toMatchObject({ reason: 'preview failed', error: 'records service unavailable' });
  });

  it("an approver's edit is asked again with the preview of the edited arguments before it runs", async () => {
    const t = setUp([{ toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived' } }] }, { text: 'ok' }]);
    const first = await t.agent.generate('archive abc', { requester: 'U0REQ' });
    const actionId = (await t.agent.latestApprovalId(first.runId, first.suspendPayload!.toolCallId))!;
    const edited = await t.agent.editToolCall({ actionId, actor: { userId: 'U0ALICE' }, args: { id: 'abc', status: 'active' } });
    expect(edited.outcome).toBe('approved');
    if (edited.outcome !== 'approved') return;
    expect(edited.action.preview).toBeNull();
    const again = approvalOf(await collect(edited.stream!))!;
    expect(again).toMatchObject({ args: { id: 'abc', status: 'active' }, askedAgain: { fromActionId: edited.action.id, why: 'not-previewed' }, preview: { diff: [{ before: 'active', after: 'active' }] } });
    expect(t.executed).toEqual([]);
    await t.agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'U0ALICE' } });
    expect(t.executed).toEqual([{ id: 'abc', status: 'active' }]);
  });

  it('a remembered approval covers a later identical call only while the state is the one it was given for', async () => {
    const policy = definePolicy({ tools: { set_status: { requireApproval: true, rememberFor: '1h' } } });
    const t = setUp(
      [
        { toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived' } }] },
        { text: 'one' },
        { toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived' } }] },
        { text: 'two' },
        { toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived' } }] },
        { text: 'three' },
      ],
      recordsTool(),
      { model: scriptedModel([]), policy },
    );
    const first = await t.agent.generate('archive abc', { requester: 'U0REQ' });
    const decision = await t.agent.decideToolCall({ runId: first.runId, decision: 'approve', remember: true, actor: { userId: 'U0ALICE' } });
    expect(decision.outcome).toBe('approved');
    if (decision.outcome === 'approved') await decision.stream!.result;
    expect(t.executed).toHaveLength(1); // v1 → v2; the remembered approval was given at v1
    const remembered = (await sql<{ state_digest: string }>`SELECT state_digest FROM remembered_grants`.execute(database.db)).rows;
    expect(remembered.at(-1)).toEqual({ state_digest: 'v1' });
    // The state is v2 now: not what was remembered, so the call asks.
    const second = await t.agent.generate('archive abc again', { requester: 'U0REQ' });
    expect(second.finishReason).toBe('suspended');
    const again = await t.agent.decideToolCall({ runId: second.runId, decision: 'approve', remember: true, actor: { userId: 'U0ALICE' } });
    if (again.outcome === 'approved') await again.stream!.result;
    expect(t.executed).toHaveLength(2); // v2 → v3
    t.records.set('abc', { status: 'archived', version: 2 }); // back to the state the second approval was remembered for
    const third = await t.agent.generate('and again', { requester: 'U0REQ' });
    expect(third.finishReason).toBe('stop');
    expect(third.text).toBe('three');
    expect(t.executed).toHaveLength(3);
  });
});

describeBackends('what a preview costs (%s)', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** The statements a whole cycle sends (stream → pause → approve → the call runs → the run ends), counted as the database answers them. */
  async function statementsOfCycle(tool: Tool, reason?: string): Promise<number> {
    let statements = 0;
    const counted = database.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements += 1;
        return args.result;
      },
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'set_status', args: { id: 'abc', status: 'archived', ...(reason ? { [STATED_REASON_FIELD]: reason } : {}) } }] }, { text: 'Done.' }]);
    const agent = agentWith({ model, tools: { set_status: tool }, storage: counted });
    const first = await agent.generate('archive abc');
    expect(first.finishReason).toBe('suspended');
    const done = await agent.approveToolCallGenerate({ runId: first.runId });
    expect(done.text).toBe('Done.');
    return statements;
  }

  it('its own call twice and no statement more; the stated reason none either', async () => {
    const previewed = recordsTool();
    const { preview: _preview, ...rest } = previewed.tool;
    const plain: Tool = createTool({ ...rest, execute: async ({ id, status }) => ({ id, status }) });
    const without = await statementsOfCycle(plain);
    expect(without).toBe(4);
    expect(await statementsOfCycle(previewed.tool)).toBe(without);
    expect(previewed.previews).toHaveLength(2);
    expect(await statementsOfCycle(plain, 'because')).toBe(without);
  });
});
