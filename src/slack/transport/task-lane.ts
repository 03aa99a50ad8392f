import type { BackgroundTasks } from './background-tasks.js';

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
