import type { Logger } from '../../logger.js';
import { errorReference } from '../kit/error-reference.js';
import type { InboundRequests } from './inbound-requests.js';

/** Longest a handed-off task waits for the receiver to catch up, so steady traffic cannot starve it. */
const DEFAULT_MAX_HOLD_MS = 50;

/**
 * Work that runs after Slack has been acknowledged. Listeners hand it here
 * instead of awaiting it, so the ack never waits on a model or the database,
 * and `drain()` lets shutdown (and tests) wait until nothing is half done.
 *
 * With `ackFirst`, a task handed off while other Slack requests are still
 * unanswered starts once they are answered (or after `maxHoldMs`). Agent work
 * runs on the same event loop as the receiver; started at once, a burst of
 * clicks would have its later acks queue behind the decisions of the earlier
 * ones, and Slack gives each request 3 seconds.
 */
export class BackgroundTasks {
  private readonly running = new Set<Promise<void>>();
  private inbound: InboundRequests | undefined;
  private held: { promise: Promise<void>; release: () => void } | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly maxHoldMs = DEFAULT_MAX_HOLD_MS,
  ) {}

  /** From now on, tasks wait while `inbound` has requests pending. */
  ackFirst(inbound: InboundRequests): void {
    this.inbound = inbound;
    inbound.onIdle(() => this.held?.release());
  }

  /**
   * Starts `work`. When it throws, the failure is logged with a reference and
   * `onError` gets that reference, to tell the person who was waiting.
   */
  run(name: string, work: () => Promise<unknown>, onError?: (ref: string) => Promise<unknown>): void {
    const admitted = this.admission();
    const task = (async () => {
      if (admitted) await admitted;
      try {
        await work();
      } catch (error) {
        const ref = errorReference();
        this.logger.error({ err: error, task: name, ref }, 'background task failed');
        if (onError) {
          await onError(ref).catch((reportError: unknown) =>
            this.logger.error({ err: reportError, task: name, ref }, 'could not report a failure to Slack'),
          );
        }
      }
    })();
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
  }

  /**
   * Resolves when a task handed off now would start: at once, or once the
   * requests already received are answered (see ackFirst). For work that
   * starts outside a task, such as a run continued by a decision recorded
   * before its ack.
   */
  admitted(): Promise<void> {
    return this.admission() ?? Promise.resolve();
  }

  /** Tasks handed off and not finished, including those still waiting to start. */
  get size(): number {
    return this.running.size;
  }

  /** Resolves once every task (including ones started by tasks) has finished. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Undefined when the task may start now; otherwise what it waits for, shared by every task held with it. */
  private admission(): Promise<void> | undefined {
    if (!this.inbound || this.inbound.pending === 0) return undefined;
    if (!this.held) {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      const timer = setTimeout(() => this.held?.release(), this.maxHoldMs);
      const held = {
        promise,
        release: () => {
          clearTimeout(timer);
          if (this.held === held) this.held = undefined;
          release();
        },
      };
      this.held = held;
    }
    return this.held.promise;
  }
}

interface Job {
  name: string;
  work: () => Promise<unknown>;
}

/**
 * Background tasks (BackgroundTasks.run), at most `width` at a time, the others waiting in order.
 * For work that comes in thousands at once, such as the sweep's expired requests: started together
 * they would each hold a continuation and a Slack call in flight, and the calls people wait on
 * would queue behind them. What waits here is lost at a stop, so only work whose state is on record
 * elsewhere belongs here.
 */
export class TaskLane {
  private running = 0;
  private readonly queue: Job[] = [];
  private idlers: Array<() => void> = [];

  constructor(
    private readonly tasks: BackgroundTasks,
    readonly width: number,
  ) {}

  /** Tasks started and not finished, and tasks waiting. */
  get size(): number {
    return this.running + this.queue.length;
  }

  add(name: string, work: () => Promise<unknown>): void {
    this.queue.push({ name, work });
    this.pump();
  }

  /** Forgets the tasks not started yet (a stop); returns how many. */
  clear(): number {
    const dropped = this.queue.splice(0).length;
    this.settle();
    return dropped;
  }

  /** Resolves once nothing runs or waits here. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idlers.push(resolve));
  }

  private pump(): void {
    while (this.running < this.width && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running += 1;
      this.tasks.run(job.name, async () => {
        try {
          await job.work();
        } finally {
          this.running -= 1;
          this.pump();
          this.settle();
        }
      });
    }
  }

  private settle(): void {
    if (this.size > 0) return;
    for (const resolve of this.idlers.splice(0)) resolve();
  }
}
