/**
 * The backlog suite's Slack half: two bot processes (createSlackApp as in production: the sweep on
 * a timer, the Web API's retries, a run limit) on one schema and one Slack simulator that limits
 * chat.update as Slack does (Tier 3, scaled up so the bench ends). `due` requests posted through
 * Slack come due at once and `stale` runs are left claimed by a stopped instance; meanwhile people
 * keep using the bot (sequential mention → card → Approve → answer cycles on the first instance).
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { leaveClaimed, pollUntil, type BacklogCounts } from './backlog-runtime.js';
import { APPROVERS, Executions, fullConfig, mention, plan, waitForCard, type Env, type Started } from './slack-bench-env.js';
import { cycle, theBot } from './slack-cycles.js';
import { startSlackHarness } from './slack-harness.js';
import { round, roundSummary, summarize } from './stats.js';
import type { SuiteContext } from './suite.js';

interface SlackBacklogOptions extends BacklogCounts {
  /** The fake's limit on chat.update: Slack's Tier 3 is about 50 a minute. */
  updateLimit: { perMinute: number; burst: number };
  /** People's cycles measured before and during the backlog. */
  interactiveCycles: number;
  /** How often each instance sweeps (SWEEP_INTERVAL_MS). */
  sweepIntervalMs: number;
}

/** Runs `work` over `items`, `inFlight` at a time. */
async function inParallel<T, R>(items: T[], inFlight: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    }),
  );
  return out;
}

export async function measureSlackBacklog(ctx: SuiteContext, databaseUrl: string, schema: string, db: Db, o: SlackBacklogOptions) {
  const h = await startSlackHarness({ databaseUrl, schema, approvers: APPROVERS, backlog: { maxConcurrentRuns: o.maxConcurrentRuns, sweepIntervalMs: o.sweepIntervalMs } });
  try {
    const executions = new Executions();
    h.onExecuted(executions.record);
    const env: Env = { h, executions, config: fullConfig };

    ctx.log(`slack: ${o.due + o.stale} requests through Slack, 20 in flight`);
    const setupStart = performance.now();
    const planned = await plan(env, o.due + o.stale, 'b');
    const threads = await inParallel(planned, 20, async (p) => {
      const started = await mention(env, p);
      return { started, card: await waitForCard(started) };
    });
    await h.settle();
    const setupSeconds = (performance.now() - setupStart) / 1000;
    const runOf = new Map(
      (await sql<{ id: number; run_id: string }>`SELECT id, run_id FROM pending_actions WHERE id = ANY(${threads.map((t) => t.card.actionId)}::int[])`.execute(db)).rows.map((r) => [r.id, r.run_id]),
    );
    const dueThreads = threads.slice(0, o.due);
    const staleThreads = threads.slice(o.due);
    const dueRuns = dueThreads.map((t) => runOf.get(t.card.actionId)!);
    const backlogRuns = threads.map((t) => runOf.get(t.card.actionId)!);
    await leaveClaimed(db, staleThreads.map((t) => runOf.get(t.card.actionId)!));
    const second = await h.addBot();
    await h.rateLimit('chat.update', o.updateLimit);

    const interactive = async (n: number) => {
      const people = await plan(env, n, 'p');
      const timings = [];
      for (const p of people) timings.push(await cycle(env, theBot(env), p));
      return timings;
    };
    ctx.log(`slack: ${o.interactiveCycles} cycles of people's work before the backlog`);
    const before = await interactive(o.interactiveCycles);

    // What Slack saw from here on: redraws of backlog cards, 429s, and each thread's answer.
    const cards = new Set(threads.map((t) => `${t.card.channel}/${t.card.ts}`));
    const redraws: number[] = [];
    const limited: Record<string, number> = {};
    h.traffic.listeners.push((call, at) => {
      if (call.error === 'ratelimited') limited[call.method] = (limited[call.method] ?? 0) + 1;
      else if (call.method === 'chat.update' && call.ok && cards.has(`${call.channel}/${call.ts}`)) redraws.push(at);
    });
    const answered: number[] = [];
    const watchAnswer = (s: Started) => void s.watch.answer.promise.then((a) => answered.push(a.at));
    threads.forEach((t) => watchAnswer(t.started));
    // The requester's notice comes from the instance that expired the request, in its order, which
    // for a run another instance took over (after RUN_LEASE_MS, while this one was busy) may be after the answer.
    let noticed = 0;
    h.traffic.listeners.push((call) => {
      if (call.method === 'chat.postMessage' && call.ok && call.text?.includes('expired: nobody decided')) noticed += 1;
    });

    ctx.log(`slack: ${o.due} requests due now, ${o.stale} runs to take over, two instances sweeping every ${o.sweepIntervalMs} ms`);
    // The run slots' readings start now.
    await Promise.all([h.slots(), second.slots()]);
    const t0 = performance.now();
    await sql`UPDATE pending_actions SET expires_at = now() WHERE run_id = ANY(${dueRuns}::text[]) AND status = 'pending'`.execute(db);
    const during = interactive(o.interactiveCycles);
    const allExpired = await pollUntil(
      async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pending_actions WHERE status = 'expired'`.execute(db)).rows[0]!.n >= o.due,
      120_000,
      'expiring every due request',
    );
    const allContinued = await pollUntil(
      async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots WHERE run_id = ANY(${backlogRuns}::text[])`.execute(db)).rows[0]!.n === 0,
      1_800_000,
      'continuing every run',
    );
    const allShown = await pollUntil(async () => answered.length >= o.due + o.stale && noticed >= o.due, 600_000, 'showing every answer and expiry notice');
    const duringTimings = await during;
    const slots = await Promise.all([h.slots(), second.slots()]);
    const end = performance.now();
    const appRateLimited = (await h.botStats()).appRateLimited + (await second.stats()).appRateLimited;

    const first = redraws[0] ?? end;
    const redrawSeconds = Math.max(1e-3, (end - first) / 1000);
    const expiryNotices = dueThreads.filter((t) => t.started.watch.other.some((text) => text.includes('expired: nobody decided'))).length;
    const answersPerThread = threads.filter((t) => t.started.watch.answer.settled).length;
    if (answersPerThread !== o.due + o.stale) throw new Error(`${answersPerThread} of ${o.due + o.stale} backlog threads got their answer`);
    if (expiryNotices !== o.due) throw new Error(`${expiryNotices} of ${o.due} requesters were told their request expired`);
    if (executions.total !== 2 * o.interactiveCycles || executions.stray !== 0) throw new Error(`${executions.total} tools ran, expected ${2 * o.interactiveCycles} (people's cycles only)`);
    const others = h.traffic.totals.failed.filter((f) => !f.endsWith('ratelimited'));
    if (others.length > 0) throw new Error(`the fake refused ${others.length} calls: ${others.slice(0, 3).join('; ')}`);
    const clickToAnswer = (t: Array<{ clickToAnswerMs: number }>) => roundSummary(summarize(t.map((x) => x.clickToAnswerMs)), 1);
    return {
      setup: { requests: o.due + o.stale, seconds: round(setupSeconds, 1) },
      updateLimit: o.updateLimit,
      dueToAllExpiredMs: round(allExpired - t0, 0),
      dueToAllContinuedMs: round(allContinued - t0, 0),
      dueToAllAnswersShownMs: round(allShown - t0, 0),
      answersShownPerSec: round((o.due + o.stale) / ((allShown - t0) / 1000), 1),
      redraws: { count: redraws.length, seconds: round(redrawSeconds, 1), perMinute: round((redraws.length / redrawSeconds) * 60, 0) },
      rateLimited: limited,
      appClientRateLimited: appRateLimited,
      slots,
      interactive: { before: clickToAnswer(before), during: clickToAnswer(duringTimings) },
    };
  } finally {
    await h.close();
  }
}
