/**
 * The runtime suite's cycle on Mastra, in a child process of the `mastra` suite.
 *
 * Plain JavaScript run by the Node 22 binary of the scratch install (bench/.mastra-cache):
 * Mastra needs Node 22 and is no dependency of the product, so this file is neither
 * type-checked nor bundled, and loads Mastra, @mastra/pg, zod and pg from the cache.
 * The scripted model is the runtime suite's own (bench/lib/scripted-model.ts, loaded through
 * Node 22's type stripping), so both sides run the same zero-latency model.
 *
 * Env: MASTRA_CACHE (the scratch install), DATABASE_URL, BENCH_SCHEMA (an empty schema the
 * parent created and drops), BENCH_POOL_SIZE, BENCH_SEQUENTIAL / BENCH_CONCURRENT
 * ("warmup,cycles"), BENCH_IN_FLIGHT, BENCH_STATEMENT_CYCLES. Prints one line
 * `MASTRA_RESULT <json>` on stdout.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const pair = (name) => env(name).split(',').map(Number);

const requireFromCache = createRequire(join(env('MASTRA_CACHE'), 'package.json'));
const { Agent } = requireFromCache('@mastra/core/agent');
const { createTool } = requireFromCache('@mastra/core/tools');
const { Mastra } = requireFromCache('@mastra/core/mastra');
const { PostgresStore } = requireFromCache('@mastra/pg');
const { z } = requireFromCache('zod');
const pg = requireFromCache('pg');
const { approvalScriptModel } = await import(new URL('./scripted-model.ts', import.meta.url).href);

const toolName = 'delete_record';
const schema = env('BENCH_SCHEMA');

/** Every statement Mastra's pool sends, counted as the runtime suite counts ours. */
let statements = 0;
class CountingClient extends pg.Client {
  query(...args) {
    statements += 1;
    return super.query(...args);
  }
}
const pool = new pg.Pool({
  connectionString: env('DATABASE_URL'),
  max: Number(env('BENCH_POOL_SIZE')),
  Client: CountingClient,
});

/** Tool executions per run, so each cycle can check its tool ran exactly once. */
const executions = new Map();
let executedTotal = 0;
const deleteRecord = createTool({
  id: toolName,
  description: 'Deletes one record by id.',
  inputSchema: z.object({ id: z.string() }),
  requireApproval: true,
  execute: async (input) => {
    executedTotal += 1;
    executions.set(input.id, (executions.get(input.id) ?? 0) + 1);
    return { done: input.id };
  },
});

const agent = new Agent({
  id: 'bench',
  name: 'bench',
  instructions: 'You delete records when asked.',
  model: approvalScriptModel(toolName),
  tools: { [toolName]: deleteRecord },
});
const storage = new PostgresStore({ id: 'bench', pool, schemaName: schema });
const mastra = new Mastra({ agents: { bench: agent }, storage, logger: false });
await storage.init();
const benchAgent = mastra.getAgent('bench');

let recordCounter = 0;

/** stream → tool-call-approval chunk → approveToolCall → final text, with the exactly-once check. */
async function cycle() {
  const recordId = `r${++recordCounter}`;
  const stream = await benchAgent.stream(`delete record ${recordId}`);
  let approval;
  for await (const chunk of stream.fullStream) if (chunk.type === 'tool-call-approval') approval = chunk;
  if (!approval) throw new Error(`run ${stream.runId} asked for no approval`);
  const resumed = await benchAgent.approveToolCall({ runId: stream.runId, toolCallId: approval.payload.toolCallId });
  const text = await resumed.text;
  if (text !== `Deleted ${recordId}.`) throw new Error(`run ${stream.runId} did not finish: "${text}"`);
  if (executions.get(recordId) !== 1) throw new Error(`run ${stream.runId}: tool executed ${executions.get(recordId) ?? 0} times, expected 1`);
  executions.delete(recordId);
}

async function runCycles(count, inFlight) {
  let started = 0;
  const executedBefore = executedTotal;
  const statementsBefore = statements;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      while (started < count) {
        started += 1;
        await cycle();
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (executedTotal - executedBefore !== count) throw new Error(`${count} cycles ran the tool ${executedTotal - executedBefore} times`);
  return {
    cycles: count,
    inFlight,
    seconds,
    cyclesPerSec: count / seconds,
    nodeCpuMsPerCycle: (cpu.user + cpu.system) / 1000 / count,
    statementsPerCycle: (statements - statementsBefore) / count,
  };
}

const [seqWarmup, seqCycles] = pair('BENCH_SEQUENTIAL');
const [concWarmup, concCycles] = pair('BENCH_CONCURRENT');
const inFlight = Number(env('BENCH_IN_FLIGHT'));

await runCycles(seqWarmup, 1);
const sequential = await runCycles(seqCycles, 1);
await runCycles(concWarmup, inFlight);
const concurrent = await runCycles(concCycles, inFlight);
const perCycle = await runCycles(Number(env('BENCH_STATEMENT_CYCLES')), 1);
await new Promise((r) => setTimeout(r, 50));
if (executions.size !== 0) throw new Error(`${executions.size} tool executions belong to no cycle`);

const coreVersion = requireFromCache('@mastra/core/package.json').version;
const pgVersion = requireFromCache('@mastra/pg/package.json').version;
await storage.close();
await pool.end();
process.stdout.write(
  `MASTRA_RESULT ${JSON.stringify({
    mastraCore: coreVersion,
    mastraPg: pgVersion,
    node: process.version,
    sequential,
    concurrent,
    statementsPerCycle: perCycle.statementsPerCycle,
  })}\n`,
);
