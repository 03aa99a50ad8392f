/**
 * The bot process of the crash tests, killed by the parent with SIGKILL:
 *   - default: approves the run it is given and hangs inside the tool's execute; prints
 *     `executing <id>` once execute has started;
 *   - CHILD_MODE=fresh: starts a run whose model call never returns, and prints
 *     `recorded <runId>` once the run is on record (so a takeover could finish it).
 */
import { MockLanguageModelV3 } from 'ai/test';
import { sql } from 'kysely';
import { z } from 'zod';
import { openDatabase } from '../../src/db/database.js';
import { createTool } from '../../src/agent/tool.js';
import { agentWith } from './agents.js';
import { scriptedModel } from './scripted-model.js';

const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, schema: process.env.CHILD_SCHEMA! });

if (process.env.CHILD_MODE === 'fresh') {
  const thinking = new MockLanguageModelV3({ doStream: () => new Promise(() => {}) });
  const agent = agentWith({ model: thinking, storage: database, memory: true, runLeaseMs: 1000, recordRunAfterMs: 0 });
  const stream = await agent.stream(process.env.CHILD_PROMPT!, { threadId: process.env.CHILD_THREAD!, resourceId: 'T1' });
  for (;;) {
    const row = await sql`SELECT 1 FROM run_snapshots WHERE run_id = ${stream.runId}`.execute(database.db);
    if (row.rows.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  process.stdout.write(`recorded ${stream.runId}\n`);
} else {
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
}
await new Promise(() => {});
