/**
 * The "other process" of the restart test: a fresh Node process that knows
 * only the database and the agent's definition, lists the suspended run and
 * approves it. Prints one JSON line with what it saw.
 */
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { agentWith, countingTool } from './agents.js';
import { scriptedModel } from './scripted-model.js';

const database = await openDatabase(
  process.env.CHILD_BACKEND === 'postgres'
    ? { databaseUrl: process.env.DATABASE_URL!, schema: process.env.CHILD_SCHEMA! }
    : { dataDir: process.env.CHILD_DATA_DIR!, schema: process.env.CHILD_SCHEMA! },
);
try {
  const { tool, calls } = countingTool('delete_record', { requireApproval: true });
  const agent = agentWith({ model: scriptedModel([{ text: 'approved in another process' }]), tools: { delete_record: tool }, storage: database });
  const { runs } = await agent.listSuspendedRuns({ threadId: 'restart-thread' });
  const runId = runs[0]!.runId;
  const result = await agent.approveToolCallGenerate({ runId });
  const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots WHERE run_id = ${runId}`.execute(database.db);
  let again = '';
  try {
    await agent.approveToolCall({ runId });
  } catch (error) {
    again = (error as Error).message;
  }
  console.log(JSON.stringify({ pid: process.pid, runs, text: result.text, calls, snapshotsLeft: left.rows[0]!.n, again }));
} finally {
  await database.close();
}
