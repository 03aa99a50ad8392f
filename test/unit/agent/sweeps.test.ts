import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startExpirySweeper, startSweeping } from '../../../src/agent/sweeps.js';
import { RunSlots } from '../../../src/agent/run-slots.js';
import type { ExpiredRequest } from '../../../src/agent/api-types.js';

/** A fake agent with `due` requests, handing out at most `limit` per call, timed by the fake clock. */
function backlogOf(due: number, msPerBatch = 0) {
  let left = due;
  const calls: number[] = [];
  return {
    calls,
    get left() {
      return left;
    },
    async sweepExpired(limit = 100): Promise<ExpiredRequest[]> {
      if (msPerBatch > 0) await new Promise((resolve) => setTimeout(resolve, msPerBatch));
      const n = Math.min(limit, left);
      left -= n;
      calls.push(n);
      return Array.from({ length: n }, () => ({}) as ExpiredRequest);
    },
  };
}

describe('the expiry sweeper', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('takes batch after batch while they come back full: 1,000 due requests in one sweep, not one batch per interval', async () => {
    const agent = backlogOf(1_000);
    let expired = 0;
    const sweeper = startExpirySweeper([agent], { intervalMs: 30_000, onExpired: () => (expired += 1) });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(agent.calls).toEqual([100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 0]);
    expect(expired).toBe(1_000);
    sweeper.stop();
  });

  it('a sweep stops when its time is up, and the next follows at once instead of after the interval', async () => {
    // Each batch takes 2 s, so a 5 s budget ends a sweep after its third.
    const agent = backlogOf(1_000, 2_000);
    const started: number[] = [];
    const timed = { sweepExpired: (limit?: number) => (started.push(Date.now() - t0), agent.sweepExpired(limit)) };
    const t0 = Date.now();
    const sweeper = startExpirySweeper([timed], { intervalMs: 30_000, budgetMs: 5_000 });
    await vi.advanceTimersByTimeAsync(120_000);
    // Four sweeps 100 ms apart drain it (the last batch finds nothing); then one per interval again.
    expect(started).toEqual([30_000, 32_000, 34_000, 36_100, 38_100, 40_100, 42_200, 44_200, 46_200, 48_300, 50_300, 82_300, 114_300]);
    expect(agent.calls.slice(0, 11)).toEqual([100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 0]);
    sweeper.stop();
  });

  it('one sweep at a time, and a failing sweep is reported and retried at the next interval', async () => {
    let running = 0;
    let most = 0;
    let calls = 0;
    const errors: unknown[] = [];
    const sweeper = startSweeping(
      async () => {
        calls += 1;
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 50_000));
        running -= 1;
        if (calls === 1) throw new Error('database away');
        return { more: false };
      },
      { intervalMs: 10_000, onError: (error) => errors.push(error) },
    );
    await vi.advanceTimersByTimeAsync(10_000 + 50_000 + 10_000 + 50_000);
    expect(calls).toBe(2);
    expect(most).toBe(1);
    expect(errors).toHaveLength(1);
    sweeper.stop();
    await vi.advanceTimersByTimeAsync(200_000);
    expect(calls).toBe(2);
  });
});

describe('run slots', () => {
  it('hand a freed slot to the waiting decisions first, then the backlog in order; fresh runs are never held', async () => {
    const slots = new RunSlots(2);
    const order: string[] = [];
    const first = slots.tryTake()!;
    const second = slots.tryTake()!;
    expect(slots.tryTake()).toBeUndefined();
    const started = ['sweep-1', 'sweep-2', 'decision-1'].map((name) =>
      slots.take(name.startsWith('sweep') ? 'sweep' : 'decision').then((release) => {
        order.push(name);
        return release;
      }),
    );
    // A fresh run is counted but never waits.
    const fresh = slots.takeAnyway();
    expect(slots.active).toBe(3);
    expect(slots.waiting).toBe(3);
    expect(slots.free).toBe(0);
    first();
    first();
    second();
    await Promise.resolve();
    // Three taken (the fresh run among them) against a limit of two: only one of the waiting starts.
    expect(order).toEqual(['decision-1']);
    fresh();
    await Promise.resolve();
    expect(order).toEqual(['decision-1', 'sweep-1']);
    for (const release of await Promise.all(started.slice(0, 1).concat(started.slice(2)))) release();
    await Promise.resolve();
    expect(order).toEqual(['decision-1', 'sweep-1', 'sweep-2']);
    expect(slots.free).toBe(1);
    (await started[1]!)();
    expect(slots.active).toBe(0);
    expect(slots.free).toBe(2);
  });

  it('refuse a limit that is not a positive integer', () => {
    expect(() => new RunSlots(0)).toThrow(RangeError);
    expect(() => new RunSlots(1.5)).toThrow(RangeError);
  });
});
