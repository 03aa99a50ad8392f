/**
 * Heap retained per suspended run. Run by the runtime suite in a child process:
 *   node --expose-gc --import tsx bench/heap.ts
 * Prints one `HEAP_RESULT {json}` line on stdout.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { closeAllBenchDatabases, defaultDatabaseUrl, openBenchDatabase } from './lib/bench-db.js';
import { approveAndFinish, benchAgent, suspendOne } from './lib/fixture.js';
import { round } from './lib/stats.js';

export interface HeapResult {
  runs: number;
  heapBeforeBytes: number;
  heapAfterBytes: number;
  bytesPerRun: number;
  /** Part of the heap delta that is V8 code space (JIT output, not data), per run. */
  codeSpaceBytesPerRun: number;
  /** The same figure for external memory (Buffers etc.), for reference. */
  externalBytesPerRun: number;
}

const gc = globalThis.gc;

async function settledHeap(): Promise<{ heapUsed: number; code: number; external: number }> {
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setImmediate(r));
    gc!();
  }
  const m = process.memoryUsage();
  const code = getHeapSpaceStatistics()
    .filter((s) => s.space_name.startsWith('code'))
    .reduce((sum, s) => sum + s.space_used_size, 0);
  return { heapUsed: m.heapUsed, code, external: m.external };
}

async function main(): Promise<void> {
  if (typeof gc !== 'function') throw new Error('run with node --expose-gc');
  const databaseUrl = process.env.DATABASE_URL || defaultDatabaseUrl;
  const warmup = Number(process.env.BENCH_HEAP_WARMUP ?? 1000);
  const runs = Number(process.env.BENCH_HEAP_RUNS ?? 1000);
  const bench = await openBenchDatabase(databaseUrl);
  try {
    let executions = 0;
    const agent = benchAgent(bench.db, () => void (executions += 1));
    // Warm up every code path (suspend, approve, finish) and the pool connection. A short
    // warm-up leaves V8 still tiering up during the measurement, and its new optimized code
    // (≈ 200 B/run after 200 warm-up runs) would be counted as retained.
    for (let i = 0; i < warmup; i++) {
      const runId = await suspendOne(agent, `w${i}`);
      if (i % 2 === 0) await approveAndFinish(agent, runId, `w${i}`);
    }
    const before = await settledHeap();
    // Streams and run ids are dropped as soon as each run is suspended.
    for (let i = 0; i < runs; i++) await suspendOne(agent, `h${i}`);
    const after = await settledHeap();
    if (executions !== Math.ceil(warmup / 2)) throw new Error(`tool ran ${executions} times during the heap bench`);
    const result: HeapResult = {
      runs,
      heapBeforeBytes: before.heapUsed,
      heapAfterBytes: after.heapUsed,
      bytesPerRun: round((after.heapUsed - before.heapUsed) / runs, 1),
      codeSpaceBytesPerRun: round((after.code - before.code) / runs, 1),
      externalBytesPerRun: round((after.external - before.external) / runs, 1),
    };
    process.stdout.write(`HEAP_RESULT ${JSON.stringify(result)}\n`);
  } finally {
    await bench.close();
  }
}

process.once('SIGINT', () => void closeAllBenchDatabases().finally(() => process.exit(130)));
await main();
