/**
 * The failures a test asks for, per Web API method: faults for the next calls or for the n-th
 * call from now, delays, responses held until released, responses dropped altogether, and
 * Slack's rate limits.
 */
import type { Fault, RateLimit } from './types.js';

interface PlannedCall {
  fault?: Fault;
  delayMs?: number;
  hold?: Promise<void>;
  drop: boolean;
}

function take<T>(map: Map<string, T[]>, method: string): T | undefined {
  const queue = map.get(method);
  const item = queue?.shift();
  if (queue && queue.length === 0) map.delete(method);
  return item;
}

function push<T>(map: Map<string, T[]>, method: string, item: T, times = 1): void {
  const queue = map.get(method) ?? [];
  for (let i = 0; i < times; i++) queue.push(item);
  map.set(method, queue);
}

/** A token bucket: `burst` tokens, refilled at `perMinute`. */
interface Bucket {
  perMs: number;
  burst: number;
  tokens: number;
  at: number;
}

export class FaultPlan {
  private seen = new Map<string, number>();
  private limits = new Map<string, Bucket>();
  private numbered = new Map<string, Map<number, Fault>>();
  private faults = new Map<string, Fault[]>();
  private delays = new Map<string, number[]>();
  private holds = new Map<string, Array<Promise<void>>>();
  private drops = new Map<string, true[]>();

  failNext(method: string, fault: Fault, times = 1): void {
    push(this.faults, method, fault, times);
  }

  failCall(method: string, n: number, fault: Fault): void {
    if (!Number.isInteger(n) || n < 1) throw new Error(`failCall: n must be a positive integer, got ${n}`);
    const byNumber = this.numbered.get(method) ?? new Map<number, Fault>();
    byNumber.set((this.seen.get(method) ?? 0) + n, fault);
    this.numbered.set(method, byNumber);
  }

  delayNext(method: string, ms: number, times = 1): void {
    push(this.delays, method, ms, times);
  }

  holdNext(method: string): () => void {
    let release!: () => void;
    push(this.holds, method, new Promise<void>((resolve) => (release = resolve)));
    return release;
  }

  dropNext(method: string, times = 1): void {
    push(this.drops, method, true, times);
  }

  /**
   * From now on, calls to `method` beyond its limit are answered HTTP 429 `ratelimited` with
   * Retry-After (whole seconds until the next call would be allowed), as Slack does per method and
   * workspace; undefined lifts the limit.
   */
  rateLimit(method: string, limit: RateLimit | undefined): void {
    if (!limit) {
      this.limits.delete(method);
      return;
    }
    if (!(limit.perMinute > 0) || (limit.burst !== undefined && !(limit.burst >= 1))) throw new Error(`rateLimit: perMinute must be positive and burst at least 1, got ${JSON.stringify(limit)}`);
    const burst = limit.burst ?? 1;
    this.limits.set(method, { perMs: limit.perMinute / 60_000, burst, tokens: burst, at: performance.now() });
  }

  /** What happens to the call arriving now; counts it. */
  next(method: string): PlannedCall {
    const count = (this.seen.get(method) ?? 0) + 1;
    this.seen.set(method, count);
    const byNumber = this.numbered.get(method);
    let fault = byNumber?.get(count);
    if (fault) byNumber?.delete(count);
    else fault = take(this.faults, method);
    fault ??= this.overLimit(method);
    const planned: PlannedCall = { drop: take(this.drops, method) === true };
    if (fault) planned.fault = fault;
    const delayMs = take(this.delays, method);
    if (delayMs !== undefined) planned.delayMs = delayMs;
    return planned;
  }

  /** Taken after the call was handled: a hold only delays the answer, not the effect. */
  hold(method: string): Promise<void> | undefined {
    return take(this.holds, method);
  }

  /** A 429 when `method` has a limit and no call left in it now; otherwise the call takes one. */
  private overLimit(method: string): Fault | undefined {
    const bucket = this.limits.get(method);
    if (!bucket) return undefined;
    const now = performance.now();
    bucket.tokens = Math.min(bucket.burst, bucket.tokens + (now - bucket.at) * bucket.perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return { status: 429, retryAfter: Math.max(1, Math.ceil((1 - bucket.tokens) / bucket.perMs / 1000)) };
  }

  reset(): void {
    this.seen = new Map();
    this.limits = new Map();
    this.numbered = new Map();
    this.faults = new Map();
    this.delays = new Map();
    this.holds = new Map();
    this.drops = new Map();
  }
}
