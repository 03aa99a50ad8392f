import { z } from 'zod';
import { Agent, type AgentConfig } from '../../src/agent/agent.js';
import { createTool } from '../../src/agent/tool.js';
import type { AgentChunk, AgentStream } from '../../src/agent/api-types.js';

/** A tool whose executions are counted, for "ran exactly once" assertions. */
export function countingTool(id: string, options: { requireApproval?: boolean | ((input: { id: string }) => boolean | Promise<boolean>) } = {}) {
  const calls: unknown[] = [];
  const tool = createTool({
    id,
    description: `test tool ${id}`,
    inputSchema: z.object({ id: z.string() }),
    ...(options.requireApproval !== undefined ? { requireApproval: options.requireApproval } : {}),
    execute: async (input: { id: string }) => {
      calls.push(input);
      return { done: input.id };
    },
  });
  return { tool, calls };
}

export async function collect(stream: AgentStream): Promise<AgentChunk[]> {
  const chunks: AgentChunk[] = [];
  for await (const c of stream.fullStream) chunks.push(c);
  return chunks;
}

export function agentWith(config: Omit<AgentConfig, 'id'> & { id?: string }): Agent {
  return new Agent({ id: 'ops', instructions: 'You are a test agent.', ...config });
}
