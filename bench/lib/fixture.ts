import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { Agent, type AgentConfig } from '../../src/agent/agent.js';
import { createTool } from '../../src/agent/tool.js';
import type { Db } from '../../src/db/database.js';
import { approvalScriptModel } from './scripted-model.js';

export const toolName = 'delete_record';

export interface Execution {
  runId: string;
  /** The record the tool was asked to delete (the last word of the request). */
  recordId: string;
  /** performance.now() as execute started. */
  at: number;
}

/** What a suite may add to the bench agent (the Slack suite: a policy and the bot's user id). */
type BenchAgentExtras = Omit<AgentConfig, 'id' | 'instructions' | 'model' | 'tools' | 'storage'>;

/**
 * The agent every runtime measurement uses: one tool with `requireApproval:
 * true`, a zero-latency scripted model, the default (silent) logger.
 */
export function benchAgent(storage: Db, onExecute: (e: Execution) => void, extras: BenchAgentExtras = {}): Agent {
  const tool = createTool({
    id: toolName,
    description: 'Deletes one record by id.',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    execute: async (input: { id: string }, context) => {
      onExecute({ runId: context.agent?.runId ?? '?', recordId: input.id, at: performance.now() });
      return { done: input.id };
    },
  });
  return new Agent({
    id: 'bench',
    instructions: 'You delete records when asked.',
    model: approvalScriptModel(toolName),
    tools: { [toolName]: tool },
    storage,
    ...extras,
  });
}

/** Starts a run and waits until it is suspended on exactly one approval; returns its run id. */
export async function suspendOne(agent: Agent, recordId: string): Promise<string> {
  const stream = await agent.stream(`delete record ${recordId}`);
  const result = await stream.result;
  if (result.finishReason !== 'suspended' || result.pending.length !== 1 || result.pending[0]!.toolName !== toolName) {
    throw new Error(`run ${stream.runId} did not suspend on one approval: ${result.finishReason} ${String(result.error ?? '')}`);
  }
  return stream.runId;
}

/** Approves a suspended run and waits for its final text; checks the text. */
export async function approveAndFinish(agent: Agent, runId: string, recordId: string): Promise<void> {
  const resumed = await agent.approveToolCall({ runId });
  const result = await resumed.result;
  if (result.finishReason !== 'stop' || result.text !== `Deleted ${recordId}.`) {
    throw new Error(`run ${runId} did not finish: ${result.finishReason} "${result.text}" ${String(result.error ?? '')}`);
  }
}
