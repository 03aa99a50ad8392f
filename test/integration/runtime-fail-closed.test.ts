import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel, lastToolResults } from '../helpers/scripted-model.js';
import { agentWith, collect } from '../helpers/agents.js';
import { Agent } from '../../src/agent/agent.js';
import { createTool } from '../../src/agent/tool.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import { ToolCallNotPendingError } from '../../src/agent/errors.js';
import { fingerprint } from '../../src/approvals/fingerprint.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { listAuditEvents } from '../../src/db/audit.js';
import type { RequireToolApprovalContext, ApprovalRequest } from '../../src/agent/api-types.js';

/** A tool with no approval of its own, counting its runs. */
function plainTool(id: string) {
  const runs: unknown[] = [];
  const tool = createTool({
    id,
    description: `plain ${id}`,
    inputSchema: z.object({ id: z.string() }),
    execute: async (input: { id: string }) => {
      runs.push(input);
      return { done: input.id };
    },
  });
  return { tool, runs };
}

const approvals = (chunks: Array<{ type: string; payload: unknown }>) =>
  chunks.filter((c) => c.type === 'tool-call-approval').map((c) => c.payload as ApprovalRequest);

describeBackends('fail closed: approval rules, hooks and answering rights on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** ops → billing, billing's `refund` needs no approval of its own. */
  function supervisor(options: { opsDefaults?: Agent['defaultOptions'] } = {}) {
    const { tool, runs } = plainTool('refund');
    const billingModel = scriptedModel([{ toolCalls: [{ toolName: 'refund', args: { id: 'o-1' } }] }, { text: 'refunded o-1' }]);
    const billing = new Agent({ id: 'billing', model: billingModel, tools: { refund: tool } });
    const opsModel = scriptedModel([{ toolCalls: [{ toolName: 'agent-billing', args: { prompt: 'refund o-1' } }] }, { text: 'billing is done' }]);
    const ops = agentWith({ model: opsModel, agents: { billing }, storage: database, ...(options.opsDefaults ? { defaultOptions: options.opsDefaults } : {}) });
    return { ops, runs, billingModel };
  }

  it('requireToolApproval: true on the request gates the delegation and the sub-agent’s own calls', async () => {
    const { ops, runs } = supervisor();
    const first = await ops.stream('refund o-1', { requireToolApproval: true });
    const asked = approvals(await collect(first));
    expect(asked).toEqual([expect.objectContaining({ toolName: 'agent-billing', args: { prompt: 'refund o-1' }, path: ['ops'] })]);
    expect(runs).toHaveLength(0);

    const second = await ops.approveToolCall({ runId: first.runId });
    const inner = approvals(await collect(second));
    expect(await second.finishReason).toBe('suspended');
    expect(inner).toEqual([expect.objectContaining({ toolName: 'refund', args: { id: 'o-1' }, path: ['ops', 'billing'] })]);
    expect(runs).toHaveLength(0);

    const done = await ops.approveToolCallGenerate({ runId: first.runId, toolCallId: inner[0]!.toolCallId });
    expect(done.text).toBe('billing is done');
    expect(runs).toEqual([{ id: 'o-1' }]);
  });

  it('a supervisor’s defaultOptions.requireToolApproval holds at any depth, after a restore too', async () => {
    const { tool, runs } = plainTool('purge');
    const leaf = new Agent({ id: 'leaf', model: scriptedModel([{ toolCalls: [{ toolName: 'purge', args: { id: 'x' } }] }, { text: 'purged' }]), tools: { purge: tool } });
    const mid = new Agent({ id: 'mid', model: scriptedModel([{ toolCalls: [{ toolName: 'agent-leaf', args: { prompt: 'purge x' } }] }, { text: 'leaf done' }]), agents: { leaf } });
    const top = agentWith({
      model: scriptedModel([{ toolCalls: [{ toolName: 'agent-mid', args: { prompt: 'go' } }] }, { text: 'all done' }]),
      agents: { mid },
      storage: database,
      defaultOptions: { requireToolApproval: true },
    });
    let result = await top.generate('purge x');
    const seen: string[] = [];
    while (result.finishReason === 'suspended') {
      // generate() shows a sub-agent's call as the top-level delegation (Mastra's); innerToolName names the call itself.
      seen.push(`${result.suspendPayload!.path.join('/')}:${result.suspendPayload!.innerToolName ?? result.suspendPayload!.toolName}`);
      expect(runs).toHaveLength(0);
      result = await top.approveToolCallGenerate({ runId: result.runId, toolCallId: result.suspendPayload!.toolCallId });
    }
    expect(seen).toEqual(['ops:agent-mid', 'ops/mid:agent-leaf', 'ops/mid/leaf:purge']);
    expect(result.text).toBe('all done');
    expect(runs).toEqual([{ id: 'x' }]);
  });

  it('the function form is asked for the delegation and for the sub-agent’s calls, with their names, args and path', async () => {
    const { ops, runs } = supervisor();
    const asked: RequireToolApprovalContext[] = [];
    const result = await ops.generate('refund o-1', {
      requireToolApproval: (ctx) => {
        asked.push(ctx);
        return ctx.toolName === 'refund';
      },
    });
    expect(asked.map((c) => ({ toolName: c.toolName, args: c.args, path: c.path }))).toEqual([
      { toolName: 'agent-billing', args: { prompt: 'refund o-1' }, path: ['ops'] },
      { toolName: 'refund', args: { id: 'o-1' }, path: ['ops', 'billing'] },
    ]);
    expect(result.finishReason).toBe('suspended');
    expect(result.suspendPayload).toMatchObject({ toolName: 'agent-billing', suspendPayload: { toolName: 'refund' }, path: ['ops', 'billing'] });
    expect(runs).toHaveLength(0);
  });

  it('a function rule that throws or answers something other than false pauses the call', async () => {
    for (const rule of [() => { throw new Error('rule broke'); }, () => 'yes' as unknown as boolean, () => undefined as unknown as boolean]) {
      const { ops, runs } = supervisor({ opsDefaults: { requireToolApproval: rule } });
      const result = await ops.generate('refund o-1');
      expect(result.finishReason).toBe('suspended');
      expect(result.suspendPayload).toMatchObject({ toolName: 'agent-billing' });
      expect(runs).toHaveLength(0);
    }
  });

  describe('beforeToolCall', () => {
    function hooked(hook: NonNullable<NonNullable<ConstructorParameters<typeof Agent>[0]['hooks']>['beforeToolCall']>, requireApproval = false) {
      const runs: unknown[] = [];
      const tool = createTool({
        id: 'delete_record',
        description: 'delete',
        inputSchema: z.object({ id: z.string() }),
        requireApproval,
        execute: async (input: { id: string }) => void runs.push(input),
      });
      const model = scriptedModel([{ toolCalls: [{ toolName: 'delete', args: { id: 'r1' } }] }, { text: 'after the hook' }]);
      // The key the model calls ('delete') differs from the tool's id ('delete_record').
      const agent = agentWith({ model, tools: { delete: tool }, storage: database, hooks: { beforeToolCall: hook } });
      return { agent, model, runs };
    }

    it('the seed’s shape: reads input, { proceed: false, output } stops the call and the model receives the output', async () => {
      const seen: unknown[] = [];
      const { agent, model, runs } = hooked(({ toolName, input }) => {
        seen.push({ toolName, input });
        return { proceed: false, output: { refused: 'no matching approval fingerprint' } };
      });
      const result = await agent.generate('delete r1');
      expect(result.text).toBe('after the hook');
      expect(runs).toHaveLength(0);
      expect(seen).toEqual([{ toolName: 'delete', input: { id: 'r1' } }]);
      expect(lastToolResults(model)[0]).toMatchObject({ toolName: 'delete', output: { type: 'json', value: { refused: 'no matching approval fingerprint' } } });
      const events = await listAuditEvents(database.db, { runId: result.runId });
      expect(events.map((e) => e.event)).toEqual(['blocked']);
    });

    it('the seed’s fingerprint pattern matches the approval chunk: tool name is the key everywhere', async () => {
      let approved: string | undefined;
      const matched: boolean[] = [];
      const { agent, runs } = hooked(({ toolName, input }) => {
        matched.push(fingerprint(toolName, input) === approved);
        return matched.at(-1) ? undefined : { proceed: false, output: 'not approved' };
      }, true);
      const stream = await agent.stream('delete r1', { threadId: 'fp-thread', resourceId: 'T1' });
      const [chunk] = approvals(await collect(stream));
      expect(chunk).toMatchObject({ toolName: 'delete' });
      approved = chunk!.fingerprint;
      const { runs: listed } = await agent.listSuspendedRuns({ threadId: 'fp-thread' });
      expect(listed.flatMap((r) => r.toolCalls).map((c) => c.toolName)).toEqual(['delete']);
      await agent.approveToolCallGenerate({ runId: stream.runId });
      expect(matched).toEqual([true]);
      expect(runs).toEqual([{ id: 'r1' }]);
    });

    it.each([
      ['true', true],
      ['null', null],
      ['a string', 'ok'],
      ['an unknown key', { allow: true }],
      ['proceed with output', { proceed: true, output: 'x' }],
      ['a non-boolean proceed', { proceed: 'no' }],
    ])('an unrecognised verdict (%s) blocks the call with an error naming the hook', async (_label, verdict) => {
      const { agent, model, runs } = hooked(() => verdict as never);
      const result = await agent.generate('delete r1');
      expect(runs).toHaveLength(0);
      const output = (lastToolResults(model)[0] as { output: { type: string; value: string } }).output;
      expect(output.type).toBe('error-text');
      expect(output.value).toMatch(/beforeToolCall hook of agent ops returned .* which is not a verdict/);
      expect(result.text).toBe('after the hook');
    });

    it('{ proceed: true }, {} and nothing run the call; { block } and { args } keep working', async () => {
      for (const verdict of [{ proceed: true }, {}, undefined]) {
        const { agent, runs } = hooked(() => verdict as never);
        await agent.generate('delete r1');
        expect(runs).toEqual([{ id: 'r1' }]);
      }
      const blocked = hooked(() => ({ block: 'not on Fridays' }));
      await blocked.agent.generate('delete r1');
      expect(blocked.runs).toHaveLength(0);
      expect(lastToolResults(blocked.model)[0]).toMatchObject({ output: { type: 'error-text', value: 'Tool call blocked: not on Fridays' } });
      const rewritten = hooked(() => ({ proceed: true, args: { id: 'r2' } }));
      await rewritten.agent.generate('delete r1');
      expect(rewritten.runs).toEqual([{ id: 'r2' }]);
    });
  });

  it('the approval function and the policy see the key the model called, not the tool’s id', async () => {
    const { tool, runs } = plainTool('delete_record');
    const names: string[] = [];
    const agent = agentWith({
      model: scriptedModel([{ toolCalls: [{ toolName: 'remove', args: { id: 'k' } }] }, { text: 'ok' }]),
      tools: { remove: tool },
      storage: database,
      policy: definePolicy({ tools: { remove: { requireApproval: true } } }),
    });
    const result = await agent.generate('remove k', { requireToolApproval: ({ toolName }) => (names.push(toolName), false) });
    // The policy (keyed by `remove`) asks for approval; the function is not asked once the policy has.
    expect(result.suspendPayload).toMatchObject({ toolName: 'remove' });
    expect(runs).toHaveLength(0);
    const loose = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'remove', args: { id: 'k' } }] }, { text: 'ok' }]), tools: { remove: tool }, storage: database });
    await loose.generate('remove k', { requireToolApproval: ({ toolName }) => (names.push(toolName), false) });
    expect(names).toEqual(['remove']);
    expect(runs).toEqual([{ id: 'k' }]);
  });

  describe('who may answer, in the runtime', () => {
    const policy = definePolicy({ tools: { ask_user: { approvers: ['U0APPROVER'] } } });
    const asking = () =>
      agentWith({
        model: scriptedModel([{ toolCalls: [{ toolName: 'ask_user', args: { question: 'Which region?' } }] }, { text: 'thanks' }]),
        tools: { ask_user: askUserTool },
        storage: database,
        policy,
        memory: true,
        defaultOptions: { autoResumeSuspendedTools: true },
      });

    it('resumeStream refuses anyone but the requester or an approver, and code that names nobody', async () => {
      const agent = asking();
      const first = await agent.generate('set up', { requester: 'U0REQ', threadId: 'ans-1', resourceId: 'T1' });
      expect(first.finishReason).toBe('suspended');
      for (const actor of [{ userId: 'U0OTHER' }, undefined]) {
        const refused = agent.resumeStream('eu', { runId: first.runId, ...(actor ? { actor } : {}) });
        await expect(refused).rejects.toBeInstanceOf(ToolCallNotPendingError);
        await expect(refused).rejects.toMatchObject({ reason: 'not-allowed' });
      }
      expect((await agent.listSuspendedRuns()).runs.find((r) => r.runId === first.runId)?.toolCalls).toHaveLength(1);
      const byApprover = await agent.resumeGenerate('eu', { runId: first.runId, actor: { userId: 'U0APPROVER' } });
      expect(byApprover.text).toBe('thanks');
      const decided = await sql<{ decided_by: string }>`SELECT decided_by FROM pending_actions WHERE root_run_id = ${first.runId}`.execute(database.db);
      expect(decided.rows.map((r) => r.decided_by)).toEqual(['U0APPROVER']);
    });

    it('a run nobody started may be answered from code, as before', async () => {
      const agent = asking();
      const first = await agent.generate('set up');
      expect((await agent.resumeGenerate('us', { runId: first.runId })).text).toBe('thanks');
    });

    it('auto-resume takes a thread reply as the answer only from someone who may answer', async () => {
      const agent = asking();
      const first = await agent.generate('set up', { requester: 'U0REQ', threadId: 'ans-2', resourceId: 'T1' });
      const stranger = await agent.generate('eu', { requester: 'U0OTHER', threadId: 'ans-2', resourceId: 'T1' });
      expect(stranger.text).toMatch(/not used as the answer for ask_user/);
      expect(stranger.finishReason).toBe('suspended');
      const pending = await sql<{ status: string }>`SELECT status FROM pending_actions WHERE root_run_id = ${first.runId}`.execute(database.db);
      expect(pending.rows.map((r) => r.status)).toEqual(['pending']);
      const owner = await agent.generate('eu', { requester: 'U0REQ', threadId: 'ans-2', resourceId: 'T1' });
      expect(owner.text).toBe('thanks');
    });
  });

  it('a call’s start is on the audit trail before it runs: started for a call nobody approved, consumed for an approved one', async () => {
    const seenAtExecute: Record<string, string[]> = {};
    const probe = (id: string, requireApproval: boolean) =>
      createTool({
        id,
        description: id,
        inputSchema: z.object({ id: z.string() }),
        requireApproval,
        execute: async (_input, context) => {
          const events = await listAuditEvents(database.db, { runId: context.agent!.runId });
          seenAtExecute[id] = events.filter((e) => e.toolName === id).map((e) => e.event);
          return 'ok';
        },
      });
    const agent = agentWith({
      model: scriptedModel([
        { toolCalls: [{ toolName: 'look', args: { id: 'a' } }, { toolName: 'peek', args: { id: 'b' } }] },
        { toolCalls: [{ toolName: 'wipe', args: { id: 'c' } }] },
        { text: 'done' },
      ]),
      tools: { look: probe('look', false), peek: probe('peek', false), wipe: probe('wipe', true) },
      storage: database,
    });
    const first = await agent.generate('go');
    expect(seenAtExecute).toEqual({ look: ['started'], peek: ['started'] });
    const done = await agent.approveToolCallGenerate({ runId: first.runId });
    expect(done.text).toBe('done');
    expect(seenAtExecute.wipe).toEqual(['requested', 'approved', 'consumed']);
    const trail = (await listAuditEvents(database.db, { runId: first.runId })).map((e) => `${e.event}:${e.toolName}`);
    expect(trail).toEqual([
      'started:look',
      'executed:look',
      'started:peek',
      'executed:peek',
      'requested:wipe',
      'approved:wipe',
      'consumed:wipe',
      'executed:wipe',
    ]);
  });
});
