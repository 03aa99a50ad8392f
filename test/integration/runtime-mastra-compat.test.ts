/**
 * Code written against Mastra 1.71's agent-approval API, run here, one describe per item of issue
 * 25. Each test is written the way Mastra code (its docs, its own tests, the seed documents) is
 * written, and asserts what @mastra/core 1.71 itself did when run on Node 22 with the same
 * scripted model (MockLanguageModelV3 from ai 6), or, where this runtime deliberately says more
 * (who declined, edits), what docs/agents.md "Differences from Mastra" says. Mastra's own tests,
 * ported, are in runtime-mastra-own-tests.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { ageRequest } from '../helpers/age-records.js';
import { scriptedModel, lastToolResults } from '../helpers/scripted-model.js';
import { agentWith, collect, countingTool } from '../helpers/agents.js';
import { Agent } from '../../src/agent/agent.js';
import { createTool } from '../../src/agent/tool.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { ResumeValidationError } from '../../src/agent/errors.js';
import type { AgentChunk, AgentStream } from '../../src/agent/api-types.js';

type Chunk = AgentChunk;

/** The first chunk of a stream that asks for approval, as Mastra code looks for it. */
async function nextApproval(stream: AgentStream): Promise<Extract<Chunk, { type: 'tool-call-approval' }> | undefined> {
  for await (const chunk of stream.fullStream) if (chunk.type === 'tool-call-approval') return chunk;
  return undefined;
}

const prompts = (model: ReturnType<typeof scriptedModel>) => model.doStreamCalls.map((c) => c.prompt);

describeBackends('Mastra code against this runtime on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  const deleteAgent = (steps: Parameters<typeof scriptedModel>[0]) => {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel(steps);
    return { agent: agentWith({ model, tools: { delete_record: tool }, storage: database }), calls, model };
  };

  describe('1. resumeStream on a pending approval', () => {
    it('resumeStream({ approved: true }) approves and resumeStream({ approved: false, reason }) declines', async () => {
      const { agent, calls, model } = deleteAgent([
        { toolCalls: [{ toolName: 'delete_record', args: { id: 'a' } }] },
        { text: 'Deleted a.' },
        { toolCalls: [{ toolName: 'delete_record', args: { id: 'b' } }] },
        { text: 'Left b alone.' },
      ]);
      const stream = await agent.stream('delete a');
      const approval = await nextApproval(stream);
      const approved = await agent.resumeStream({ approved: true }, { runId: stream.runId, toolCallId: approval!.payload.toolCallId });
      expect(await approved.text).toBe('Deleted a.');
      expect(calls).toEqual([{ id: 'a' }]);

      const second = await agent.stream('delete b');
      const asked = await nextApproval(second);
      const declined = await agent.resumeStream({ approved: false, reason: 'keep b' }, { runId: second.runId, toolCallId: asked!.payload.toolCallId });
      expect(await declined.text).toBe('Left b alone.');
      expect(calls).toEqual([{ id: 'a' }]);
      expect(lastToolResults(model)[0]).toMatchObject({ output: { type: 'execution-denied', reason: expect.stringContaining('"keep b"') } });
    });

    it('resumeGenerate({ approved: true }) returns the final result; other data for an approval is refused and it stays pending', async () => {
      const { agent, calls } = deleteAgent([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'c' } }] }, { text: 'Deleted c.' }]);
      const output = await agent.generate('delete c');
      expect(output.finishReason).toBe('suspended');
      await expect(agent.resumeStream({ yes: 1 }, { runId: output.runId, toolCallId: output.suspendPayload!.toolCallId })).rejects.toBeInstanceOf(ResumeValidationError);
      const result = await agent.resumeGenerate({ approved: true }, { runId: output.runId, toolCallId: output.suspendPayload!.toolCallId });
      expect(result).toMatchObject({ finishReason: 'stop', text: 'Deleted c.' });
      expect(calls).toEqual([{ id: 'c' }]);
    });
  });

  describe('2. several gated calls in one step', () => {
    const threeDeletes = () =>
      deleteAgent([
        {
          text: 'Deleting three.',
          toolCalls: [
            { toolName: 'delete_record', args: { id: 'a1' } },
            { toolName: 'delete_record', args: { id: 'a2' } },
            { toolName: 'delete_record', args: { id: 'a3' } },
          ],
        },
        { text: 'All three deleted.' },
      ]);

    it('one tool-call-approval per stream: the while (approval) loop reaches the end', async () => {
      const { agent, calls } = threeDeletes();
      const stream = await agent.stream('delete a1 a2 a3');
      const first = await collect(stream);
      expect(first.filter((c) => c.type === 'tool-call-approval').map((c) => (c.payload as { args: unknown }).args)).toEqual([{ id: 'a1' }]);
      let approval = first.find((c) => c.type === 'tool-call-approval') as Extract<Chunk, { type: 'tool-call-approval' }> | undefined;
      let last: AgentStream = stream;
      const announced: unknown[] = [];
      while (approval) {
        announced.push(approval.payload.args);
        last = await agent.approveToolCall({ runId: stream.runId, toolCallId: approval.payload.toolCallId });
        approval = await nextApproval(last);
        if (approval) {
          // A stream that still waits reports the run so far, as Mastra's: its text and every call of the step.
          expect(await last.text).toBe('Deleting three.');
          expect((await last.toolCalls).map((c) => c.payload.args)).toEqual([{ id: 'a1' }, { id: 'a2' }, { id: 'a3' }]);
          expect(await last.finishReason).toBe('suspended');
        }
      }
      expect(announced).toEqual([{ id: 'a1' }, { id: 'a2' }, { id: 'a3' }]);
      expect(await last.finishReason).toBe('stop');
      expect(await last.text).toBe('Deleting three.All three deleted.');
      expect(calls).toEqual([{ id: 'a1' }, { id: 'a2' }, { id: 'a3' }]);
    });

    it("the seed's recursive consumeApprovalStream works too", async () => {
      const { agent, calls } = threeDeletes();
      const consumeApprovalStream = async (stream: AgentStream): Promise<AgentStream> => {
        for await (const chunk of stream.fullStream) {
          if (chunk.type === 'tool-call-approval') {
            return consumeApprovalStream(await agent.approveToolCall({ runId: chunk.runId, toolCallId: chunk.payload.toolCallId }));
          }
        }
        return stream;
      };
      const done = await consumeApprovalStream(await agent.stream('delete a1 a2 a3'));
      expect(await done.text).toBe('Deleting three.All three deleted.');
      expect(calls).toHaveLength(3);
    });

    it('a continuation announces the next waiting call, a question included, in the order of the calls', async () => {
      const { tool: remove } = countingTool('delete_record', { requireApproval: true });
      const model = scriptedModel([
        { toolCalls: [{ toolName: 'ask_user', args: { question: 'Q1' } }, { toolName: 'delete_record', args: { id: 'd1' } }] },
        { text: 'end' },
      ]);
      const agent = agentWith({ model, tools: { ask_user: askUserTool, delete_record: remove }, storage: database });
      const stream = await agent.stream('go');
      const first = await collect(stream);
      const suspended = first.filter((c) => c.type === 'tool-call-suspended' || c.type === 'tool-call-approval');
      expect(suspended.map((c) => c.type)).toEqual(['tool-call-suspended']);
      const next = await agent.resumeStream('yes', { runId: stream.runId, toolCallId: (suspended[0]!.payload as { toolCallId: string }).toolCallId });
      const approval = await nextApproval(next);
      expect(approval?.payload).toMatchObject({ toolName: 'delete_record', args: { id: 'd1' } });
      const done = await agent.approveToolCall({ runId: stream.runId, toolCallId: approval!.payload.toolCallId });
      expect(await done.text).toBe('end');
    });
  });

  describe('3. a tool-level requireApproval function', () => {
    it('is asked for each call with (input, { args, requestContext }) and decides over the request rule; a throw asks', async () => {
      const seen: unknown[] = [];
      const ran: unknown[] = [];
      const transfer = createTool({
        id: 'transfer',
        description: 'move money',
        inputSchema: z.object({ amount: z.number() }),
        requireApproval: async (input, ctx) => {
          seen.push([input, ctx]);
          if (input.amount < 0) throw new Error('cannot judge');
          return input.amount > 100;
        },
        execute: async (input) => void ran.push(input),
      });
      const model = scriptedModel([
        { toolCalls: [{ toolName: 'transfer', args: { amount: 5 } }, { toolName: 'transfer', args: { amount: 500 } }, { toolName: 'transfer', args: { amount: -1 } }] },
        { text: 'ok' },
      ]);
      const agent = agentWith({ model, tools: { transfer }, storage: database });
      const output = await agent.generate('move', { requireToolApproval: true, requestContext: { role: 'clerk' } });
      expect(output.pending.map((p) => p.args)).toEqual([{ amount: 500 }, { amount: -1 }]);
      expect(ran).toEqual([{ amount: 5 }]);
      expect(seen[0]).toEqual([{ amount: 5 }, { args: { amount: 5 }, requestContext: { role: 'clerk' } }]);
    });
  });

  describe('4. askUserTool', () => {
    it("answers come back as Mastra's { content: 'User answered: …', isError: false }; a mode without options is an error result", async () => {
      const model = scriptedModel([
        { toolCalls: [{ toolName: 'ask_user', args: { question: 'Pick', options: [{ label: 'red' }, { label: 'blue' }], selectionMode: 'multi_select' } }] },
        { toolCalls: [{ toolName: 'ask_user', args: { question: 'Bad', selectionMode: 'multi_select' } }] },
        { text: 'thanks' },
      ]);
      const agent = agentWith({ model, tools: { ask_user: askUserTool }, storage: database });
      const stream = await agent.stream('ask');
      const suspended = (await collect(stream)).find((c) => c.type === 'tool-call-suspended');
      expect(suspended?.payload).toMatchObject({ suspendPayload: { question: 'Pick', options: [{ label: 'red' }, { label: 'blue' }], selectionMode: 'multi_select' } });
      const resumed = await agent.resumeStream(['red', 'blue'], { runId: stream.runId, toolCallId: (suspended!.payload as { toolCallId: string }).toolCallId });
      const chunks = await collect(resumed);
      const results = chunks.filter((c) => c.type === 'tool-result').map((c) => (c.payload as { result: unknown }).result);
      expect(results).toEqual([
        { content: 'User answered: red, blue', isError: false },
        { content: 'Failed to ask user: selectionMode requires options.', isError: true },
      ]);
      expect(chunks.some((c) => c.type === 'tool-call-suspended')).toBe(false);
      expect(await resumed.text).toBe('thanks');
    });

    it("outside a run it returns Mastra's fallback text", async () => {
      const output = await askUserTool.execute({ question: 'Which env?', options: [{ label: 'staging' }, { label: 'production' }] }, { requestContext: new Map() });
      expect(output).toEqual({ content: '[Question for user]: Which env?\nOptions: staging, production\nSelection mode: single_select', isError: false });
      expect(await askUserTool.execute({ question: 'Why?' }, { requestContext: new Map() })).toEqual({ content: '[Question for user]: Why?', isError: false });
    });
  });

  describe('5, 8, 10. what a paused and a continued stream report', () => {
    it('a suspended generate() has no results of the paused step; the continuation reports the whole run', async () => {
      const { tool: lookup } = countingTool('lookup');
      const { tool: remove } = countingTool('delete_record', { requireApproval: true });
      const model = scriptedModel([
        { text: 'Looking.', toolCalls: [{ toolName: 'lookup', args: { id: 'p' } }] },
        { text: 'Now both.', toolCalls: [{ toolName: 'lookup', args: { id: 'q' } }, { toolName: 'delete_record', args: { id: 'r' } }] },
        { text: 'All done.' },
      ]);
      const agent = agentWith({ model, tools: { lookup, delete_record: remove }, storage: database });
      const output = await agent.generate('go');
      expect(output.finishReason).toBe('suspended');
      // Mastra's generate(): nothing of the step it paused in, its text included, until it resumes.
      expect(output.text).toBe('Looking.');
      expect(output.toolResults.map((r) => r.payload.toolCallId)).toEqual([output.toolCalls[0]!.payload.toolCallId]);
      expect(output.toolCalls.map((c) => c.payload.args)).toEqual([{ id: 'p' }, { id: 'q' }, { id: 'r' }]);
      expect(output.steps.map((s) => [s.text, s.toolCalls.length, s.toolResults.length])).toEqual([['Looking.', 1, 1]]);

      const stream = await agent.approveToolCall({ runId: output.runId, toolCallId: output.suspendPayload!.toolCallId });
      const chunks = await collect(stream);
      expect(chunks.filter((c) => c.type === 'tool-call-resumed').map((c) => c.payload)).toEqual([
        expect.objectContaining({ toolCallId: output.suspendPayload!.toolCallId, toolName: 'delete_record', kind: 'approval' }),
      ]);
      // As Mastra's stream: the paused step's results, then its step-finish, then the next step.
      expect(chunks.map((c) => c.type)).toEqual(['tool-call-resumed', 'tool-result', 'step-finish', 'text-delta', 'step-finish', 'finish']);
      expect(chunks.find((c) => c.type === 'tool-result')?.payload).toMatchObject({ toolName: 'delete_record', args: { id: 'r' }, result: { done: 'r' } });
      expect(await stream.text).toBe('Looking.Now both.All done.');
      expect((await stream.toolCalls).map((c) => c.payload.args)).toEqual([{ id: 'p' }, { id: 'q' }, { id: 'r' }]);
      expect((await stream.toolResults).map((r) => r.payload.result)).toEqual([{ done: 'p' }, { done: 'q' }, { done: 'r' }]);
      expect((await stream.steps).map((s) => s.text)).toEqual(['Looking.', 'Now both.', 'All done.']);
      expect(await stream.finishReason).toBe('stop');
      expect(await stream.usage).toEqual({ inputTokens: 3, outputTokens: 3, totalTokens: 6 });
    });

    it("a resumed suspension's stream has the whole text and a tool-call-resumed of kind suspension", async () => {
      const model = scriptedModel([{ text: 'Let me ask.', toolCalls: [{ toolName: 'ask_user', args: { question: 'Name?' } }] }, { text: 'Hi Ada.' }]);
      const agent = agentWith({ model, tools: { ask_user: askUserTool }, storage: database });
      const output = await agent.generate('greet me');
      expect(output).toMatchObject({ finishReason: 'suspended', text: '', toolResults: [], steps: [] });
      const stream = await agent.resumeStream('Ada', { runId: output.runId });
      const resumed = (await collect(stream)).filter((c) => c.type === 'tool-call-resumed');
      expect(resumed.map((c) => c.payload)).toEqual([expect.objectContaining({ toolName: 'ask_user', kind: 'suspension', suspendPayload: { question: 'Name?' } })]);
      expect(await stream.text).toBe('Let me ask.Hi Ada.');
      expect((await stream.steps).map((s) => s.text)).toEqual(['Let me ask.', 'Hi Ada.']);
    });

    // Mastra's own test of text across a pause ("should persist text stream state") is ported in runtime-mastra-own-tests.test.ts.

    it('a paused stream ends with the chunk announcing the pause, no finish chunk; its promises say suspended', async () => {
      const { agent } = deleteAgent([{ text: 'Deleting z.', toolCalls: [{ toolName: 'delete_record', args: { id: 'z' } }] }, { text: 'Done.' }]);
      const stream = await agent.stream('delete z');
      const types = (await collect(stream)).map((c) => c.type);
      expect(types).toEqual(['start', 'text-delta', 'tool-call', 'tool-call-approval']);
      expect(await stream.finishReason).toBe('suspended');
      expect(await stream.text).toBe('Deleting z.');
      expect(await stream.steps).toEqual([]);
      expect((await stream.toolCalls).map((c) => c.payload.args)).toEqual([{ id: 'z' }]);
      expect(await stream.usage).toEqual({ inputTokens: 1, outputTokens: 1, totalTokens: 2 });
    });
  });

  describe('6, 7. a supervisor with a sub-agent', () => {
    const supervisor = (subSteps: Parameters<typeof scriptedModel>[0], delegationArgs: Record<string, unknown> = { prompt: 'refund 5 on 1042' }) => {
      const ran: unknown[] = [];
      const refund = createTool({
        id: 'issue_refund',
        description: 'refund',
        inputSchema: z.object({ orderId: z.string(), amountCents: z.number() }),
        requireApproval: true,
        execute: async (input) => {
          ran.push(input);
          return { refunded: input.amountCents };
        },
      });
      const billing = new Agent({ id: 'billing', description: 'Billing', model: scriptedModel(subSteps), tools: { issue_refund: refund, ask_user: askUserTool } });
      const ops = agentWith({
        model: scriptedModel([{ text: 'Delegating.', toolCalls: [{ toolName: 'agent-billing', args: delegationArgs, toolCallId: 'sup_1' }] }, { text: 'Billing says done.' }]),
        agents: { billing },
        storage: database,
      });
      return { ops, ran };
    };
    const refundStep = { toolCalls: [{ toolName: 'issue_refund', args: { orderId: '1042', amountCents: 500 }, toolCallId: 'inner_1' }] };

    it("an inner approval is the inner tool under the supervisor's toolCallId; approving that id runs the inner call", async () => {
      const { ops, ran } = supervisor([refundStep, { text: 'Refunded $5.' }]);
      const stream = await ops.stream('refund');
      const approval = await nextApproval(stream);
      expect(approval?.payload).toMatchObject({
        toolCallId: 'sup_1',
        toolName: 'issue_refund',
        args: { orderId: '1042', amountCents: 500 },
        innerToolCallId: 'inner_1',
        path: ['ops', 'billing'],
      });
      const next = await ops.approveToolCall({ runId: stream.runId, toolCallId: approval!.payload.toolCallId });
      const chunks = await collect(next);
      expect(chunks.find((c) => c.type === 'tool-call-resumed')?.payload).toMatchObject({ toolCallId: 'sup_1', innerToolCallId: 'inner_1', kind: 'approval' });
      expect(await next.text).toBe('Delegating.Billing says done.');
      expect(ran).toEqual([{ orderId: '1042', amountCents: 500 }]);
      expect((await next.toolResults).find((r) => r.payload.toolName === 'agent-billing')?.payload.result).toEqual({ text: 'Refunded $5.' });
    });

    it("generate() shows a sub-agent's pause as Mastra's does: the delegation, carrying the inner call", async () => {
      const { ops, ran } = supervisor([refundStep, { text: 'Refunded $5.' }]);
      const output = await ops.generate('refund');
      expect(output.suspendPayload).toMatchObject({
        toolCallId: 'sup_1',
        toolName: 'agent-billing',
        args: { prompt: 'refund 5 on 1042' },
        suspendPayload: { toolCallId: 'inner_1', toolName: 'issue_refund', args: { orderId: '1042', amountCents: 500 } },
      });
      expect(output.text).toBe('');
      const done = await ops.approveToolCallGenerate({ runId: output.runId, toolCallId: output.suspendPayload!.toolCallId });
      expect(done).toMatchObject({ finishReason: 'stop', text: 'Delegating.Billing says done.' });
      expect(ran).toHaveLength(1);

      const { ops: asking } = supervisor([{ toolCalls: [{ toolName: 'ask_user', args: { question: 'Which order?' }, toolCallId: 'inner_q' }] }, { text: 'Thanks.' }]);
      const paused = await asking.generate('refund');
      expect(paused.suspendPayload).toMatchObject({
        toolCallId: 'sup_1',
        toolName: 'agent-billing',
        suspendPayload: { toolCallId: 'inner_q', toolName: 'ask_user', args: { question: 'Which order?' }, suspendPayload: { question: 'Which order?' } },
      });
      const answered = await asking.resumeGenerate('1042', { runId: paused.runId, toolCallId: paused.suspendPayload!.toolCallId });
      expect(answered.text).toBe('Delegating.Billing says done.');
    });

    it('two delegations in one step that each ask: both are announced at once, and approving each by its id runs both', async () => {
      const processed: string[] = [];
      const processOrder = createTool({
        id: 'process-order',
        description: 'Process the given order. Requires human approval.',
        inputSchema: z.object({ orderId: z.string() }),
        requireApproval: true,
        execute: async ({ orderId }) => {
          processed.push(orderId);
          return { orderId, processed: true };
        },
      });
      const orderOf = (prompt: unknown) => (JSON.stringify(prompt).includes('ord_BBB') ? 'ord_BBB' : 'ord_AAA');
      const subStep = ({ prompt }: { prompt: unknown }) =>
        JSON.stringify(prompt).includes('processed')
          ? { text: `Processed ${orderOf(prompt)}.` }
          : { toolCalls: [{ toolName: 'processOrderTool', args: { orderId: orderOf(prompt) }, toolCallId: `tc-${orderOf(prompt)}` }] };
      const subAgent = new Agent({ id: 'subAgent', description: 'Processes a single order.', model: scriptedModel([subStep]), tools: { processOrderTool: processOrder } });
      const supervisorAgent = agentWith({
        id: 'supervisor',
        model: scriptedModel([
          {
            toolCalls: [
              { toolName: 'agent-subAgent', args: { prompt: 'Process order ord_AAA.' }, toolCallId: 'sup-tc-A' },
              { toolName: 'agent-subAgent', args: { prompt: 'Process order ord_BBB.' }, toolCallId: 'sup-tc-B' },
            ],
          },
          { text: 'Both orders processed.' },
        ]),
        agents: { subAgent },
        storage: database,
      });
      const stream = await supervisorAgent.stream('Process both orders in parallel.');
      const approvals = (await collect(stream)).filter((c) => c.type === 'tool-call-approval').map((c) => c.payload as { toolCallId: string; args: unknown });
      // Mastra 1.71 runs the delegations side by side and announces both pauses in the first stream.
      expect(approvals.map((a) => [a.toolCallId, a.args])).toEqual([
        ['sup-tc-A', { orderId: 'ord_AAA' }],
        ['sup-tc-B', { orderId: 'ord_BBB' }],
      ]);
      let last: AgentStream | undefined;
      for (const a of approvals) {
        last = await supervisorAgent.approveToolCall({ runId: stream.runId, toolCallId: a.toolCallId });
        await collect(last);
      }
      expect(processed.sort()).toEqual(['ord_AAA', 'ord_BBB']);
      expect(await last!.text).toBe('Both orders processed.');
    });

    it('an inner suspension is the delegation with the inner suspendPayload; resuming the supervisor id answers it', async () => {
      const { ops } = supervisor([{ toolCalls: [{ toolName: 'ask_user', args: { question: 'Which order?' }, toolCallId: 'inner_q' }] }, { text: 'Thanks, got it.' }]);
      const stream = await ops.stream('refund');
      const suspended = (await collect(stream)).find((c) => c.type === 'tool-call-suspended');
      expect(suspended?.payload).toMatchObject({
        toolCallId: 'sup_1',
        toolName: 'agent-billing',
        args: { prompt: 'refund 5 on 1042' },
        suspendPayload: { question: 'Which order?' },
        innerToolCallId: 'inner_q',
        innerToolName: 'ask_user',
      });
      const next = await ops.resumeStream('Order 1042', { runId: stream.runId, toolCallId: 'sup_1' });
      expect(await next.text).toBe('Delegating.Billing says done.');
    });

    it('a delegation with keys besides prompt runs the sub-agent', async () => {
      const { ops, ran } = supervisor([refundStep, { text: 'Refunded $5.' }], { prompt: 'refund 5 on 1042', threadId: 't', maxSteps: 3, instructions: 'be brief' });
      const output = await ops.generate('refund');
      expect(output.suspendPayload).toMatchObject({
        toolCallId: 'sup_1',
        toolName: 'agent-billing',
        args: { prompt: 'refund 5 on 1042', threadId: 't', maxSteps: 3, instructions: 'be brief' },
        suspendPayload: { toolName: 'issue_refund' },
      });
      const done = await ops.approveToolCallGenerate({ runId: output.runId, toolCallId: 'sup_1' });
      expect(done.finishReason).toBe('stop');
      expect(ran).toHaveLength(1);
    });
  });

  describe('9. declines reach the stream and the model', () => {
    it('declineToolCall: tool-output-denied, listed in toolCalls, not in toolResults; the model is told who declined and their words', async () => {
      const { agent, model } = deleteAgent([{ text: 'Deleting.', toolCalls: [{ toolName: 'delete_record', args: { id: 'x' } }] }, { text: 'Not deleted.' }]);
      const stream = await agent.stream('delete x');
      const approval = await nextApproval(stream);
      const declined = await agent.declineToolCall({ runId: stream.runId, toolCallId: approval!.payload.toolCallId, reason: 'done', actor: { userId: 'U0ALICE' } });
      const denied = (await collect(declined)).find((c) => c.type === 'tool-output-denied');
      expect(denied?.payload).toMatchObject({
        toolCallId: approval!.payload.toolCallId,
        toolName: 'delete_record',
        args: { id: 'x' },
        approval: { id: approval!.payload.toolCallId, approved: false, reason: 'done' },
        by: 'U0ALICE',
      });
      expect((await declined.toolCalls).map((c) => c.payload.toolCallId)).toEqual([approval!.payload.toolCallId]);
      expect(await declined.toolResults).toEqual([]);
      // A reason such as "done" never reads as the tool's output.
      expect(lastToolResults(model)[0]).toMatchObject({
        output: { type: 'execution-denied', reason: 'Tool call declined by U0ALICE; delete_record did not run. Their reason, in their own words: "done".' },
      });
    });

    it('a batch declined call by call, an expiry and a cancellation are worded the same way', async () => {
      const { tool } = countingTool('refund');
      const model = scriptedModel([{ toolCalls: [{ toolName: 'refund', args: { id: 'o-1' } }, { toolName: 'refund', args: { id: 'o-2' } }] }, { text: 'none done' }]);
      const agent = agentWith({ model, tools: { refund: tool }, storage: database, policy: definePolicy({ tools: { refund: { requireApproval: true, expiresIn: '1h' } } }) });
      const output = await agent.generate('refund both');
      await agent.declineToolCall({ runId: output.runId, toolCallId: output.pending[0]!.toolCallId, reason: 'not this week', actor: { userId: 'U0BOB' } });
      // The other request, past its hour as the sweep finds it.
      await ageRequest(database.db, { runId: output.runId }, 3_600_000 + 1_000);
      const [swept] = await agent.sweepExpired();
      await swept!.stream!.result;
      expect(lastToolResults(model).map((r) => (r as { output: { reason: string } }).output.reason)).toEqual([
        'Tool call declined by U0BOB; refund did not run. Their reason, in their own words: "not this week".',
        'Tool call expired; refund did not run: nobody approved it before its approval request expired.',
      ]);

      const cancelModel = scriptedModel([{ toolCalls: [{ toolName: 'refund', args: { id: 'o-3' } }] }, { text: 'cancelled' }]);
      const other = agentWith({ model: cancelModel, tools: { refund: tool }, storage: database, policy: definePolicy({ tools: { refund: { requireApproval: true } } }) });
      const waiting = await other.generate('refund o-3');
      const actionId = (await other.latestApprovalId(waiting.runId, waiting.suspendPayload!.toolCallId))!;
      const cancelled = await other.cancelRequest(actionId, 'The request could not be shown in Slack.');
      await cancelled!.stream.result;
      expect(lastToolResults(cancelModel)[0]).toMatchObject({
        output: { type: 'execution-denied', reason: 'Tool call cancelled; refund did not run: The request could not be shown in Slack.' },
      });
    });

    it('a declined edit: the model sees the edited arguments in its call and is told they were declined, and why', async () => {
      const ran: unknown[] = [];
      const refund = createTool({
        id: 'refund',
        description: 'refund',
        inputSchema: z.object({ orderId: z.string(), amountCents: z.number().int().positive() }),
        execute: async (input) => void ran.push(input),
      });
      const model = scriptedModel([{ toolCalls: [{ toolName: 'refund', args: { orderId: '1042', amountCents: 2500 } }] }, { text: 'not refunded' }]);
      const policy = definePolicy({
        tools: { refund: { requireApproval: true, approvers: ['UCAROL', 'UFIN'], rules: [{ when: { arg: 'amountCents', op: 'gt', value: 120000 }, then: { approvers: ['UFIN'] } }] } },
      });
      const agent = agentWith({ model, tools: { refund }, storage: database, policy });
      const output = await agent.generate('refund $25 on 1042', { requester: 'UREQ' });
      const actionId = (await agent.latestApprovalId(output.runId, output.suspendPayload!.toolCallId))!;
      const edited = await agent.editToolCall({ actionId, actor: { userId: 'UCAROL' }, args: { orderId: '1042', amountCents: 150000 } });
      expect(edited.outcome).toBe('pending');
      const declined = await agent.declineToolCallGenerate({ runId: output.runId, toolCallId: output.suspendPayload!.toolCallId, actor: { userId: 'UFIN' }, reason: 'too much' });
      expect(declined.text).toBe('not refunded');
      expect(ran).toEqual([]);
      const prompt = prompts(model).at(-1)!;
      const call = prompt.flatMap((m) => (m.role === 'assistant' ? m.content : [])).find((p) => p.type === 'tool-call') as { input: unknown };
      expect(call.input).toEqual({ orderId: '1042', amountCents: 150000 });
      expect(lastToolResults(model)[0]).toMatchObject({
        output: {
          type: 'execution-denied',
          reason:
            'Tool call declined by UFIN; refund did not run. An approver (UCAROL) had changed its arguments before it was declined: amountCents 2500 → 150000. Their reason, in their own words: "too much".',
        },
      });
    });
  });
});
