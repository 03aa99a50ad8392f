/**
 * The bot process of the crash test: approves the run it is given and then
 * hangs inside the tool's execute, where the parent kills it with SIGKILL.
 * Prints `executing <id>` once execute has started.
 */
import { z } from 'zod';
import { openDatabase } from '../../src/db/database.js';
import { createTool } from '../../src/agent/tool.js';
import { agentWith } from './agents.js';
import { scriptedModel } from './scripted-model.js';

const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, schema: process.env.CHILD_SCHEMA! });
const tool = createTool({
  id: 'delete_record',
  description: 'deletes a record',
  inputSchema: z.object({ id: z.string() }),
  requireApproval: true,
  execute: async (input: { id: string }) => {
    process.stdout.write(`executing ${input.id}\n`);
    await new Promise(() => {});
  },
});
const agent = agentWith({ model: scriptedModel([{ text: 'never reached' }]), tools: { delete_record: tool }, storage: database, runLeaseMs: 1000 });
await agent.approveToolCall({ runId: process.env.CHILD_RUN_ID! });
await new Promise(() => {});
