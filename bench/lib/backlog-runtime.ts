/**
 * The backlog suite's runtime half: two instances (two agents on two pools of their own, in this
 * process) sweeping one schema in which `due` requests come due at once and `stale` runs were left
 * claimed by a stopped instance, each sweeping as the Slack app does (takeWhileFull,
 * takeOverWhileFull, again 100 ms later while work is left). No Slack: what is measured is the
 * database and the run limit.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Agent } from '../../src/agent/agent.js';
import { startSweeping, takeOverWhileFull, takeWhileFull } from '../../src/agent/sweeps.js';
import type { AgentStream } from '../../src/agent/api-types.js';
import { findDecisionTarget, recordApprovalVote } from '../../src/db/pending-actions.js';
import type { Db } from '../../src/db/database.js';
import { openCountingPool, type CountingPool } from './bench-db.js';
import { benchAgent, suspendOne } from './fixture.js';
import { prefillHistory } from './prefill.js';
import { round } from './stats.js';
import type { SuiteContext } from './suite.js';

export interface BacklogCounts {
  due: number;
  stale: number;
  maxConcurrentRuns: number;
}

/** Samples how many run slots an agent uses, every 10 ms. */
function slotSampler(agent: Agent) {
  const slots = agent.runtime.runSlots;
  let max = 0;
  let sum = 0;
  let n = 0;
  const timer = setInterval(() => {
    max = Math.max(max, slots.active);
    sum += slots.active;
    n += 1;
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return { limit: slots.limit, maxActive: max, meanActive: round(n ? sum / n : 0, 1) };
    },
  };
}

/** Waits until `probe` says done, polling every 50 ms; gives up after `timeoutMs`. */
export async function pollUntil(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`bench: ${what} not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return performance.now();
}

/** `ids` of suspended clones, approved by a process that stopped at once (run claimed, nothing run), claim aged past any lease. */
export async function leaveClaimed(db: Db, runIds: string[]): Promise<void> {
  for (const runId of runIds) {
    const action = (await findDecisionTarget(db, runId, undefined, ['approval']))!;
    await recordApprovalVote(db, { actionId: action.id, actor: 'U0BSTOPPED', policyVersion: action.policy_version!, grantTtlMs: 3_600_000 });
  }
  await sql`UPDATE run_snapshots SET claimed_at = now() - interval '1 hour' WHERE run_id = ANY(${runIds}::text[])`.execute(db);
}

export async function measureRuntimeBacklog(ctx: SuiteContext, databaseUrl: string, schema: string, counts: BacklogCounts) {
  const pools: CountingPool[] = [await openCountingPool(databaseUrl, schema), await openCountingPool(databaseUrl, schema)];
  let executed = 0;
  const agents = pools.map((p) => benchAgent(p.db, () => (executed += 1), { maxConcurrentRuns: counts.maxConcurrentRuns }));
  const sweepers: Array<{ stop(): void }> = [];
  try {
    ctx.log(`runtime: ${counts.due} requests coming due and ${counts.stale} runs left by a stopped instance, cloned from one`);
    const template = await suspendOne(agents[0]!, 'template');
    await prefillHistory(pools[0]!.db, { finishedRunId: template, suspendedRunId: template }, { finished: 0, open: counts.due + counts.stale });
    const ids = Array.from({ length: counts.due + counts.stale }, (_, i) => `hist-open-${i + 1}`);
    const due = ids.slice(0, counts.due);
    const stale = ids.slice(counts.due);
    await leaveClaimed(pools[0]!.db, stale);

    const streams: Array<Promise<unknown>> = [];
    let finished = 0;
    const track = (stream: AgentStream | undefined) => {
      if (stream) streams.push(stream.result.then((r) => void (r.finishReason === 'stop' && (finished += 1))));
    };
    const samplers = agents.map(slotSampler);
    const statementsBefore = pools.map((p) => p.counter.count);
    for (const agent of agents) {
      sweepers.push(
        startSweeping(
          async () => {
            const expired = await takeWhileFull((limit) => agent.sweepExpired(limit), (batch) => batch.forEach((e) => track(e.stream)));
            const recovered = await takeOverWhileFull(agent, (batch) => batch.forEach((r) => track(r.stream)));
            return { more: expired.more || recovered.more };
          },
          { intervalMs: 1_000, onError: (error) => ctx.log(`sweep failed: ${String(error)}`) },
        ),
      );
    }
    const t0 = performance.now();
    await sql`UPDATE pending_actions SET expires_at = now() WHERE run_id = ANY(${due}::text[])`.execute(pools[0]!.db);
    const allExpired = await pollUntil(
      async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pending_actions WHERE status = 'expired'`.execute(pools[0]!.db)).rows[0]!.n >= counts.due,
      120_000,
      'expiring every due request',
    );
    const allEnded = await pollUntil(
      async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots WHERE run_id LIKE 'hist-open-%'`.execute(pools[0]!.db)).rows[0]!.n === 0,
      600_000,
      'continuing every run',
    );
    for (const s of sweepers.splice(0)) s.stop();
    await Promise.all(streams);
    const slots = samplers.map((s) => s.stop());
    const statements = pools.reduce((sum, p, i) => sum + p.counter.count - statementsBefore[i]!, 0);

    const audit = await sql<{ n: number; distinct: number; first: Date; last: Date }>`
      SELECT count(*)::int AS n, count(DISTINCT tool_call_id || run_id)::int AS distinct, min(at) AS first, max(at) AS last
      FROM audit_events WHERE event = 'expired'
    `.execute(pools[0]!.db);
    const a = audit.rows[0]!;
    // Each request expired once (one audit row each), each run went on once (one finished stream
    // each: a second continuation of a run finds it claimed and finishes without running), and no
    // approved call of a stopped run was run again.
    if (a.n !== counts.due || a.distinct !== counts.due) throw new Error(`${a.n} expiries recorded (${a.distinct} distinct) for ${counts.due} requests`);
    if (finished !== counts.due + counts.stale) throw new Error(`${finished} continuations finished, expected ${counts.due + counts.stale}`);
    if (executed !== 0) throw new Error(`${executed} tools ran; every call was expired or interrupted`);
    const continuedSeconds = (allEnded - t0) / 1000;
    return {
      counts,
      dueToAllExpiredMs: round(allExpired - t0, 0),
      firstToLastExpiredMs: round(new Date(a.last).getTime() - new Date(a.first).getTime(), 0),
      dueToAllContinuedMs: round(allEnded - t0, 0),
      continuationsPerSec: round((counts.due + counts.stale) / continuedSeconds, 0),
      statementsPerContinuation: round(statements / (counts.due + counts.stale), 2),
      slots,
    };
  } finally {
    for (const s of sweepers) s.stop();
    await Promise.all(pools.map((p) => p.close()));
  }
}
