/**
 * The failures a test asks for, per Web API method: faults for the next calls or for the n-th
 * call from now, delays, responses held until released, and responses dropped altogether.
 */
import type { Fault } from './types.js';

export interface PlannedCall {
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

export class FaultPlan {
  private seen = new Map<string, number>();
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

  /** What happens to the call arriving now; counts it. */
  next(method: string): PlannedCall {
    const count = (this.seen.get(method) ?? 0) + 1;
    this.seen.set(method, count);
    const byNumber = this.numbered.get(method);
    let fault = byNumber?.get(count);
    if (fault) byNumber?.delete(count);
    else fault = take(this.faults, method);
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

  reset(): void {
    this.seen = new Map();
    this.numbered = new Map();
    this.faults = new Map();
    this.delays = new Map();
    this.holds = new Map();
    this.drops = new Map();
  }
}
