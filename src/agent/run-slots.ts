/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/**
 * Which queue a continuation waits in while every slot is taken: one someone is waiting on (a
 * decision, an answer) goes ahead of the sweep's backlog (expired requests).
 */
export type RunPriority = 'decision' | 'sweep';

/**
 * How many runs this process works on at once (maxConcurrentRuns). A continuation takes a slot
 * before it starts and gives it back when it ends or pauses; with none free it waits, in order,
 * decisions ahead of the sweep's backlog. Nothing waits here that a stop would lose: a waiting
 * continuation's run is on record in PostgreSQL (suspended, its last wait over), and another
 * instance takes it over after the lease if this one stops first. A fresh run is not on record
 * yet, so it never waits: it is counted (the backlog gives way to it), and may go past the limit.
 */
export class RunSlots {
  private running = 0;
  private readonly queues: Record<RunPriority, Array<() => void>> = { decision: [], sweep: [] };
  private readonly heads: Record<RunPriority, number> = { decision: 0, sweep: 0 };

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`maxConcurrentRuns must be a positive integer, got ${limit}`);
  }

  /** Runs working now (fresh runs included). */
  get active(): number {
    return this.running;
  }

  /** Continuations waiting for a slot. */
  get waiting(): number {
    return this.length('decision') + this.length('sweep');
  }

  /** Slots a caller could take right now without waiting (none while anything waits). */
  get free(): number {
    return this.waiting > 0 ? 0 : Math.max(0, this.limit - this.running);
  }

  /** A slot now if one is free and nothing waits for one; otherwise undefined. */
  tryTake(): ReleaseSlot | undefined {
    if (this.free === 0) return undefined;
    return this.grant();
  }

  /** Resolves with a slot once it is this caller's turn. */
  take(priority: RunPriority): Promise<ReleaseSlot> {
    const now = this.tryTake();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => this.queues[priority].push(() => resolve(this.grant())));
  }

  /** For work that cannot wait (a fresh run): counted, taken even past the limit. */
  takeAnyway(): ReleaseSlot {
    return this.grant();
  }

  private grant(): ReleaseSlot {
    this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.next();
    };
  }

  private next(): void {
    if (this.running >= this.limit) return;
    const wake = this.shift('decision') ?? this.shift('sweep');
    wake?.();
  }

  private length(priority: RunPriority): number {
    return this.queues[priority].length - this.heads[priority];
  }

  /** FIFO without Array#shift, which copies the array: a backlog queues thousands. */
  private shift(priority: RunPriority): (() => void) | undefined {
    const queue = this.queues[priority];
    const head = this.heads[priority];
    if (head >= queue.length) return undefined;
    const item = queue[head]!;
    queue[head] = undefined as never;
    this.heads[priority] = head + 1;
    if (this.heads[priority] === queue.length) {
      queue.length = 0;
      this.heads[priority] = 0;
    }
    return item;
  }
}
