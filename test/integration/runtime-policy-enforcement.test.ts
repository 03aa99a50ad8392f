import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { agentWith, collect, countingTool } from '../helpers/agents.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { botMetrics } from '../../src/metrics/bot-metrics.js';
import { evaluateCall, type PastCall } from '../../src/approvals/evaluate-call.js';
import type { AgentChunk, ApprovalRequest, DeniedCall } from '../../src/agent/api-types.js';
import type { Agent } from '../../src/agent/agent.js';

const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const SRE1 = 'U0SRE1';
const SRE2 = 'U0SRE2';

/** A model that deletes each id in turn (all in one step when `together`), then says 'done'. */
function deletes(ids: string[], together = false): ReturnType<typeof scriptedModel> {
  const steps: ScriptStep[] = together
    ? [{ toolCalls: ids.map((id) => ({ toolName: 'delete_record', args: { id } })) }]
    : ids.map((id) => ({ toolCalls: [{ toolName: 'delete_record', args: { id } }] }));
  return scriptedModel([...steps, { text: 'done' }]);
}

/** The continuation a decision started; fails the test when it started none. */
function streamOf(decision: Awaited<ReturnType<Agent['decideToolCall']>>) {
  if (!('stream' in decision) || !decision.stream) throw new Error(`expected a continuation, got ${decision.outcome}`);
  return decision.stream;
}

const approvalsOf = (chunks: AgentChunk[]) => chunks.flatMap((c) => (c.type === 'tool-call-approval' ? [c.payload as ApprovalRequest] : []));
const deniedOf = (chunks: AgentChunk[]) => chunks.flatMap((c) => (c.type === 'tool-output-denied' ? [c.payload as DeniedCall] : []));

/** What the model was told for each call of the run (the tool results in its last prompt). */
function toldModel(model: ReturnType<typeof scriptedModel>): unknown[] {
  const prompt = model.doStreamCalls.at(-1)!.prompt;
  return prompt.flatMap((m) => (m.role === 'tool' ? m.content.map((p) => (p.type === 'tool-result' ? p.output : undefined)) : []));
}

describeBackends('the policy says no, freezes, unattended runs and a shadow policy, in the runtime on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  async function requestsOf(runId: string) {
    const r = await sql<{ id: number; status: string; args: unknown; quorum: number; policy_version: string; requester: string | null; caller: string | null }>`
      SELECT id, status, args, quorum, policy_version, requester, caller FROM pending_actions WHERE root_run_id = ${runId} AND kind = 'approval' ORDER BY id`.execute(database.db);
    return r.rows;
  }

  describe('deny', () => {
    it('never runs and never asks, whatever the request, the hook or the tool say; the model is told why; audited as denied', async () => {
      const { tool, calls } = countingTool('delete_record', { requireApproval: true });
      const model = deletes(['prod']);
      const hooked: unknown[] = [];
      const policy = definePolicy({ tools: { delete_record: { approvers: [ALICE], rules: [{ when: { arg: 'id', op: 'eq', value: 'prod' }, then: { deny: 'Production records are never deleted from chat.' } }] } } });
      const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, policy, hooks: { beforeToolCall: (ctx) => void hooked.push(ctx.args) } });
      const stream = await agent.stream('delete prod', { requester: BOB, requireToolApproval: true });
      const chunks = await collect(stream);
      expect(await stream.finishReason).toBe('stop');
      expect(calls).toEqual([]);
      expect(hooked).toEqual([]);
      expect(approvalsOf(chunks)).toEqual([]);
      expect(await requestsOf(stream.runId)).toEqual([]);
      const [denied] = deniedOf(chunks);
      expect(denied).toMatchObject({
        toolName: 'delete_record',
        args: { id: 'prod' },
        status: 'denied',
        policy: { reason: 'Production records are never deleted from chat.', source: 'tools.delete_record.rules[0]' },
        approval: { approved: false, reason: 'Production records are never deleted from chat.' },
      });
      expect(toldModel(model)).toEqual([
        {
          type: 'execution-denied',
          reason: 'Tool call denied by policy; delete_record did not run. The policy\'s reason: "Production records are never deleted from chat.". Nobody was asked, and asking again will not change it.',
        },
      ]);
      const events = await listAuditEvents(database.db, { runId: stream.runId });
      expect(events.map((e) => e.event)).toEqual(['denied']);
      expect(events[0]).toMatchObject({ actor: BOB, policyVersion: policy.version, fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), detail: { reason: 'Production records are never deleted from chat.', source: 'tools.delete_record.rules[0]' } });
    });

    it('a remembered approval runs identical calls until a limit whose then denies is gone over: that call is denied, not run under it', async () => {
      const { tool, calls } = countingTool('delete_record');
      const policy = definePolicy({
        tools: { delete_record: { requireApproval: true, approvers: [ALICE], rememberFor: '1h', limits: [{ count: true, by: 'requester', over: '1h', above: 2, then: { deny: 'At most two deletions an hour.' } }] } },
      });
      const run = async () => {
        const model = deletes(['r7']);
        const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, policy });
        const stream = await agent.stream('delete r7', { requester: 'U0REMEMBERS' });
        return { agent, stream, chunks: await collect(stream), model };
      };
      const first = await run();
      const [asked] = approvalsOf(first.chunks);
      const decision = await first.agent.decideToolCall({ actionId: asked!.actionId, actor: { userId: ALICE }, decision: 'approve', remember: true });
      expect(decision.outcome === 'approved' && decision.remembered).toBeTruthy();
      if (decision.outcome === 'approved') await decision.stream!.text;
      const second = await run();
      expect(second.chunks.some((c) => c.type === 'tool-call-remembered')).toBe(true);
      expect(calls).toHaveLength(2);
      const third = await run();
      expect(third.chunks.some((c) => c.type === 'tool-call-remembered' || c.type === 'tool-call-approval')).toBe(false);
      expect(deniedOf(third.chunks)[0]).toMatchObject({ status: 'denied', policy: { reason: 'At most two deletions an hour.', source: 'tools.delete_record.limits[0]' } });
      expect(calls).toHaveLength(2);
      expect((await listAuditEvents(database.db, { runId: third.stream.runId })).map((e) => e.event)).toEqual(['denied']);
    });

    it('an approval given before the policy changed to deny it does not run: approved while another call of the step waited', async () => {
      const { tool, calls } = countingTool('delete_record', { requireApproval: true });
      const model = deletes(['a1', 'b1'], true);
      const allow = definePolicy({ tools: { delete_record: { approvers: [ALICE] } } });
      const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, policy: allow });
      const stream = await agent.stream('delete a1 and b1', { requester: BOB });
      await collect(stream);
      const [a, b] = await requestsOf(stream.runId);
      expect((await agent.decideToolCall({ actionId: a!.id, actor: { userId: ALICE }, decision: 'approve' })).outcome).toBe('approved');
      agent.runtime.policy = definePolicy({ tools: { delete_record: { approvers: [ALICE], rules: [{ when: { arg: 'id', op: 'eq', value: 'a1' }, then: { deny: 'a1 is kept for the audit.' } }] } } });
      const decision = await agent.decideToolCall({ actionId: b!.id, actor: { userId: ALICE }, decision: 'approve' });
      // b1 was asked under the old policy: asked again under the new one, and a1 is denied now.
      expect(decision.outcome).toBe('policy-changed');
      const chunks = await collect(streamOf(decision));
      expect(deniedOf(chunks)).toMatchObject([{ toolName: 'delete_record', args: { id: 'a1' }, status: 'denied', policy: { reason: 'a1 is kept for the audit.' } }]);
      expect(approvalsOf(chunks).map((r) => r.args)).toEqual([{ id: 'b1' }]);
      expect(calls).toEqual([]);
      const events = await listAuditEvents(database.db, { runId: stream.runId });
      expect(events.filter((e) => e.event === 'denied').map((e) => e.detail)).toEqual([{ reason: 'a1 is kept for the audit.', source: 'tools.delete_record.rules[0]' }]);
      expect(events.some((e) => e.event === 'consumed' || e.event === 'executed')).toBe(false);
    });

    it('an edit to arguments the policy denies is refused, changes nothing and is audited as refused', async () => {
      const { tool, calls } = countingTool('delete_record', { requireApproval: true });
      const policy = definePolicy({ tools: { delete_record: { approvers: [ALICE], rules: [{ when: { arg: 'id', op: 'eq', value: 'prod' }, then: { deny: 'Never prod.' } }] } } });
      const agent = agentWith({ model: deletes(['staging']), tools: { delete_record: tool }, storage: database, policy });
      const stream = await agent.stream('delete staging', { requester: BOB });
      const [asked] = approvalsOf(await collect(stream));
      const edit = await agent.editToolCall({ actionId: asked!.actionId, actor: { userId: ALICE }, args: { id: 'prod' } });
      expect(edit).toMatchObject({ outcome: 'denied', args: { id: 'prod' }, denial: { reason: 'Never prod.', source: 'tools.delete_record.rules[0]' } });
      expect(await requestsOf(stream.runId)).toMatchObject([{ id: asked!.actionId, status: 'pending', args: { id: 'staging' } }]);
      const refused = (await listAuditEvents(database.db, { runId: stream.runId })).filter((e) => e.event === 'refused');
      expect(refused).toMatchObject([{ actor: ALICE, detail: { decision: 'edit', why: 'denied-by-policy' } }]);
      expect(calls).toEqual([]);
    });

    it('a beforeToolCall hook cannot turn a call into one the policy denies', async () => {
      const { tool, calls } = countingTool('delete_record');
      const policy = definePolicy({ tools: { delete_record: { rules: [{ when: { arg: 'id', op: 'eq', value: 'prod' }, then: { deny: 'Never prod.' } }] } } });
      const agent = agentWith({ model: deletes(['tmp']), tools: { delete_record: tool }, storage: database, policy, hooks: { beforeToolCall: () => ({ args: { id: 'prod' } }) } });
      const stream = await agent.stream('delete tmp', { requester: BOB });
      expect(deniedOf(await collect(stream))).toMatchObject([{ args: { id: 'prod' }, status: 'denied' }]);
      expect(calls).toEqual([]);
    });
  });

  describe('freezes (on the agent clock)', () => {
    const FRIDAY_1759 = '2026-07-03T15:59:00Z'; // 17:59 in Berlin
    const FRIDAY_1800 = '2026-07-03T16:00:00Z';
    const freezePolicy = (then: PolicyInput['freezes'] extends (infer F)[] | undefined ? F extends { then: infer T } ? T : never : never) =>
      definePolicy({
        tools: { delete_record: { requireApproval: true, approvers: [ALICE] } },
        freezes: [{ name: 'weekend', every: '0 18 * * 5', for: '62h', timeZone: 'Europe/Berlin', tools: ['delete_record'], then }],
      });

    function frozenAgent(then: Parameters<typeof freezePolicy>[0], ids: string[], together = false) {
      const clock = { now: new Date(FRIDAY_1759) };
      const { tool, calls } = countingTool('delete_record');
      const agent = agentWith({ model: deletes(ids, together), tools: { delete_record: tool }, storage: database, policy: freezePolicy(then), clock: () => clock.now });
      return { agent, calls, clock };
    }

    it('a call during a freeze gets its then (who, how many) and the chunk says which freeze and until when', async () => {
      const { agent, calls, clock } = frozenAgent({ approvers: [SRE1, SRE2], quorum: 2 }, ['f1']);
      clock.now = new Date(FRIDAY_1800);
      const stream = await agent.stream('delete f1', { requester: BOB });
      const [asked] = approvalsOf(await collect(stream));
      expect(asked).toMatchObject({ approvers: [SRE1, SRE2], quorum: 2, policyVersion: `${agent.policy.version}+freeze:weekend`, freezes: [{ name: 'weekend', until: '2026-07-06T06:00:00.000Z' }] });
      expect(agent.requirementOf((await agent.findRequest(asked!.actionId))!).freezes).toEqual([{ index: 0, name: 'weekend', until: '2026-07-06T06:00:00.000Z' }]);
      expect((await agent.decideToolCall({ actionId: asked!.actionId, actor: { userId: ALICE }, decision: 'approve' })).outcome).toBe('not-allowed');
      expect((await agent.decideToolCall({ actionId: asked!.actionId, actor: { userId: SRE1 }, decision: 'approve' })).outcome).toBe('approval-recorded');
      const done = await agent.decideToolCall({ actionId: asked!.actionId, actor: { userId: SRE2 }, decision: 'approve' });
      expect(done.outcome).toBe('approved');
      await streamOf(done).text;
      expect(calls).toEqual([{ id: 'f1' }]);
    });

    it('an approval given before the freeze does not run during it: the call is asked again under the freeze', async () => {
      const { agent, calls, clock } = frozenAgent({ approvers: [SRE1] }, ['a2', 'b2'], true);
      const stream = await agent.stream('delete a2 and b2', { requester: BOB });
      await collect(stream);
      const [a, b] = await requestsOf(stream.runId);
      expect((await agent.decideToolCall({ actionId: a!.id, actor: { userId: ALICE }, decision: 'approve' })).outcome).toBe('approved');
      clock.now = new Date(FRIDAY_1800);
      // b2's request was asked before the freeze: approving it now asks again (as after a policy change).
      const late = await agent.decideToolCall({ actionId: b!.id, actor: { userId: SRE1 }, decision: 'approve' });
      expect(late.outcome).toBe('policy-changed');
      const chunks = await collect(streamOf(late));
      expect(calls).toEqual([]);
      const again = (await requestsOf(stream.runId)).slice(2);
      expect(again).toMatchObject([
        { args: { id: 'a2' }, status: 'pending', policy_version: `${agent.policy.version}+freeze:weekend` },
        { args: { id: 'b2' }, status: 'pending', policy_version: `${agent.policy.version}+freeze:weekend` },
      ]);
      expect(approvalsOf(chunks)[0]).toMatchObject({ approvers: [SRE1], freezes: [{ name: 'weekend' }] });
      // a2's approval, given before the freeze, is superseded on the trail with the freeze named.
      const superseded = (await listAuditEvents(database.db, { runId: stream.runId })).filter((e) => e.event === 'superseded' && e.detail !== null && 'freezes' in e.detail);
      expect(superseded).toMatchObject([{ detail: { freezes: [{ name: 'weekend', until: '2026-07-06T06:00:00.000Z' }] } }]);
      // Satisfied under the freeze, both run.
      for (const r of again) {
        const d = await agent.decideToolCall({ actionId: r.id, actor: { userId: SRE1 }, decision: 'approve' });
        if (d.outcome === 'approved' && d.stream) await d.stream.text;
      }
      expect(calls).toEqual([{ id: 'a2' }, { id: 'b2' }]);
    });

    it('a freeze that denies refuses calls while in force, and they run unasked (as the tool says) after it', async () => {
      const clock = { now: new Date('2026-12-24T12:00:00Z') };
      const { tool, calls } = countingTool('delete_record');
      const policy = definePolicy({ freezes: [{ name: 'holidays', from: '2026-12-20T00:00:00Z', to: '2027-01-05T00:00:00Z', tools: ['*'], then: { deny: 'Holiday change freeze.' } }] });
      const model = deletes(['h1']);
      const agent = agentWith({ model, tools: { delete_record: tool }, storage: database, policy, clock: () => clock.now });
      const stream = await agent.stream('delete h1', { requester: BOB });
      expect(deniedOf(await collect(stream))).toMatchObject([{ policy: { reason: 'Holiday change freeze.', source: 'freezes[0]', freeze: { name: 'holidays', until: '2027-01-05T00:00:00.000Z' } } }]);
      expect(toldModel(model)[0]).toMatchObject({ reason: expect.stringContaining('during change freeze "holidays" (until 2027-01-05T00:00:00.000Z)') });
      clock.now = new Date('2027-01-05T00:00:00Z');
      const after = agentWith({ model: deletes(['h2']), tools: { delete_record: tool }, storage: database, policy, clock: () => clock.now });
      await (await after.stream('delete h2', { requester: BOB })).text;
      expect(calls).toEqual([{ id: 'h2' }]);
    });
  });

  describe('unattended runs', () => {
    it('require-approval: a call of a run nobody requested waits for a person, labelled with its caller on the request, the chunk and the audit', async () => {
      const { tool, calls } = countingTool('delete_record');
      const policy = definePolicy({ tools: { delete_record: { requireApproval: true, approvers: [ALICE], rememberFor: '1h' } } });
      const agent = agentWith({ model: deletes(['u1']), tools: { delete_record: tool }, storage: database, policy });
      const stream = await agent.stream('delete u1', { caller: 'nightly-cleanup' });
      const [asked] = approvalsOf(await collect(stream));
      expect(await stream.finishReason).toBe('suspended');
      expect(asked).toMatchObject({ caller: 'nightly-cleanup', path: ['ops'] });
      expect(asked!.requester).toBeUndefined();
      expect(await requestsOf(stream.runId)).toMatchObject([{ status: 'pending', requester: null, caller: 'nightly-cleanup' }]);
      expect((await listAuditEvents(database.db, { runId: stream.runId })).find((e) => e.event === 'requested')).toMatchObject({ actor: null, detail: { caller: 'nightly-cleanup' } });
      // Nobody to remember it for: approving with remember is a plain approval.
      const decision = await agent.decideToolCall({ actionId: asked!.actionId, actor: { userId: ALICE }, decision: 'approve', remember: true });
      expect(decision.outcome === 'approved' && decision.remembered).toBeFalsy();
      if (decision.outcome === 'approved') await decision.stream!.text;
      expect(calls).toEqual([{ id: 'u1' }]);
    });

    it('deny: such a call is refused without asking (audited with its caller); a call that needs no approval still runs', async () => {
      const { tool, calls } = countingTool('delete_record');
      const { tool: lookup, calls: lookups } = countingTool('lookup');
      const policy = definePolicy({ unattended: 'deny', tools: { delete_record: { requireApproval: true, approvers: [ALICE] } } });
      const model = scriptedModel([{ toolCalls: [{ toolName: 'lookup', args: { id: 'x' } }, { toolName: 'delete_record', args: { id: 'x' } }] }, { text: 'done' }]);
      const agent = agentWith({ model, tools: { delete_record: tool, lookup }, storage: database, policy });
      const stream = await agent.stream('clean up', { caller: 'api:ci-bot' });
      const chunks = await collect(stream);
      expect(await stream.finishReason).toBe('stop');
      expect(lookups).toHaveLength(1);
      expect(calls).toEqual([]);
      expect(deniedOf(chunks)).toMatchObject([{ toolName: 'delete_record', status: 'denied', policy: { source: 'unattended' } }]);
      expect((await listAuditEvents(database.db, { runId: stream.runId })).find((e) => e.event === 'denied')).toMatchObject({
        actor: null,
        detail: { source: 'unattended', unattended: true, agentId: 'ops', caller: 'api:ci-bot' },
      });
      // The same call with a person behind it asks.
      const attended = agentWith({ model: deletes(['y']), tools: { delete_record: tool }, storage: database, policy });
      expect(approvalsOf(await collect(await attended.stream('delete y', { requester: BOB })))).toHaveLength(1);
    });

    it('a caller label must be one line of at most 100 characters', async () => {
      const agent = agentWith({ model: deletes(['z']), tools: {}, storage: database });
      await expect(agent.stream('x', { caller: 'a\nb' })).rejects.toMatchObject({ code: 'OPTIONS_INVALID' });
      await expect(agent.stream('x', { caller: 'x'.repeat(101) })).rejects.toMatchObject({ code: 'OPTIONS_INVALID' });
    });
  });

  it('policy test evaluates a call as the runtime does: the same verdict, limits from earlier calls without a database', async () => {
    const policy = definePolicy({
      tools: {
        delete_record: {
          approvers: [ALICE],
          rules: [{ when: { arg: 'id', op: 'eq', value: 'gone' }, then: { deny: 'already gone' } }],
          limits: [
            { count: true, by: 'requester', over: '1h', above: 2, then: { requireApproval: true, quorum: 2, approvers: [SRE1, SRE2] } },
            { count: true, over: '1h', above: 3, then: { approvers: [SRE1] } },
          ],
        },
      },
    });
    const { tool } = countingTool('delete_record');
    const history: PastCall[] = [];
    const calls = [
      { id: 'e1', requester: 'U0EQ1' },
      { id: 'e2', requester: 'U0EQ1' },
      { id: 'e3', requester: 'U0EQ2' },
      { id: 'e4', requester: 'U0EQ1' },
      { id: 'gone', requester: 'U0EQ2' },
      { id: 'e5', requester: 'U0EQ2' },
    ];
    for (const call of calls) {
      const at = new Date();
      const expected = evaluateCall(policy, { toolName: 'delete_record', args: { id: call.id }, requester: call.requester, at, history }).verdict;
      const agent = agentWith({ model: deletes([call.id]), tools: { delete_record: tool }, storage: database, policy });
      const chunks = await collect(await agent.stream(`delete ${call.id}`, { requester: call.requester }));
      const asked = approvalsOf(chunks)[0];
      const outcome = deniedOf(chunks).length ? 'denied' : asked ? 'asks' : 'runs';
      expect({ call: call.id, outcome }).toEqual({ call: call.id, outcome: expected.outcome });
      if (asked) expect({ approvers: asked.approvers, quorum: asked.quorum }).toEqual({ approvers: expected.requirement.approvers, quorum: expected.requirement.quorum });
      history.push({ toolName: 'delete_record', args: { id: call.id }, requester: call.requester, at });
    }
  });

  describe('shadow policy', () => {
    const enforced = definePolicy({ tools: { delete_record: { approvers: [ALICE] } } });

    function shadowAgent(shadow: ReturnType<typeof definePolicy>, ids: string[]) {
      const { tool, calls } = countingTool('delete_record');
      const agent = agentWith({ model: deletes(ids), tools: { delete_record: tool }, storage: database, policy: enforced, shadowPolicy: shadow });
      return { agent, calls };
    }
    const diffs = async (runId: string) => (await listAuditEvents(database.db, { runId })).filter((e) => e.event === 'shadow-diff');
    const metric = async (difference: string) => (await botMetrics.shadowDiffs.get()).values.find((v) => v.labels.difference === difference)?.value ?? 0;

    it('where it would ask and the enforced policy does not: the call still runs; a shadow-diff and the metric say so', async () => {
      const shadow = definePolicy({ tools: { delete_record: { requireApproval: true, approvers: [SRE1, SRE2], quorum: 2 } } });
      const { agent, calls } = shadowAgent(shadow, ['s1']);
      const before = await metric('would-ask');
      const stream = await agent.stream('delete s1', { requester: BOB });
      expect(approvalsOf(await collect(stream))).toEqual([]);
      expect(calls).toEqual([{ id: 's1' }]);
      expect(await diffs(stream.runId)).toMatchObject([
        {
          actor: BOB,
          policyVersion: enforced.version,
          detail: { differences: ['would-ask'], shadowVersion: shadow.version, enforced: { outcome: 'runs' }, shadow: { outcome: 'asks', approvers: [SRE1, SRE2], quorum: 2 } },
        },
      ]);
      expect(await metric('would-ask')).toBe(before + 1);
    });

    it('where it would deny, or ask others: the enforced request stands as it is', async () => {
      const asks = definePolicy({ tools: { delete_record: { requireApproval: true, approvers: [ALICE] } } });
      const { tool } = countingTool('delete_record');
      const denyShadow = definePolicy({ tools: { delete_record: { deny: 'no deletions' } } });
      const agent = agentWith({ model: deletes(['s2']), tools: { delete_record: tool }, storage: database, policy: asks, shadowPolicy: denyShadow });
      const stream = await agent.stream('delete s2', { requester: BOB });
      expect(approvalsOf(await collect(stream))).toMatchObject([{ approvers: [ALICE], quorum: 1 }]);
      expect((await diffs(stream.runId)).map((e) => e.detail)).toMatchObject([{ differences: ['would-deny'], shadow: { outcome: 'denied', reason: 'no deletions' } }]);

      agent.runtime.shadowPolicy = definePolicy({ tools: { delete_record: { requireApproval: true, approvers: [SRE1], quorum: 2, allowSelfApproval: false } } });
      const other = await (agentWith({ model: deletes(['s3']), tools: { delete_record: tool }, storage: database, policy: asks, shadowPolicy: agent.runtime.shadowPolicy })).stream('delete s3', { requester: BOB });
      await collect(other);
      expect((await diffs(other.runId)).map((e) => (e.detail as { differences: string[] }).differences)).toEqual([['other-approvers', 'other-quorum', 'other-self-approval']]);
    });

    it('where they agree nothing is written', async () => {
      const same = definePolicy({ version: 'renamed', tools: { delete_record: { approvers: [ALICE] } } });
      const { agent, calls } = shadowAgent(same, ['s4']);
      const stream = await agent.stream('delete s4', { requester: BOB });
      await stream.text;
      expect(calls).toHaveLength(1);
      expect(await diffs(stream.runId)).toEqual([]);
    });
  });
});

