import type { Logger } from '../logger.js';
import { errorReference } from './error-reference.js';

/**
 * Work that runs after Slack has been acknowledged. Listeners hand it here
 * instead of awaiting it, so the ack never waits on a model or the database,
 * and `drain()` lets shutdown (and tests) wait until nothing is half done.
 */
export class BackgroundTasks {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /**
   * Starts `work`. When it throws, the failure is logged with a reference and
   * `onError` gets that reference, to tell the person who was waiting.
   */
  run(name: string, work: () => Promise<unknown>, onError?: (ref: string) => Promise<unknown>): void {
    const task = (async () => {
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

  get size(): number {
    return this.running.size;
  }

  /** Resolves once every task (including ones started by tasks) has finished. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
