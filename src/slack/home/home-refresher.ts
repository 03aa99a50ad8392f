import type { Logger } from '../../logger.js';

export interface HomeRefresherOptions {
  /** Republishes one person's Home (with a notice on top when given). */
  publish: (user: string, notice?: string) => Promise<void>;
  logger: Logger;
  /** Changes within this window are coalesced into one publish per person (default 1 s). */
  debounceMs?: number;
  /**
   * Least time between two views.publish calls of this process (default 650 ms, about 92 a
   * minute): Slack allows Tier 4 methods about 100 a minute per workspace.
   */
  minIntervalMs?: number;
}

/**
 * Keeps Home tabs current without flooding Slack: people whose inbox changed are collected,
 * published once per person after a quiet moment, one call at a time and spaced to stay under
 * views.publish's rate limit. It runs after the work that changed something, never before a
 * click's acknowledgement. It also remembers who looked at their Home here, so a request
 * anyone may decide can reach everyone who uses the inbox.
 */
export class HomeRefresher {
  private readonly due = new Set<string>();
  private readonly viewers = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private lastPublishAt = 0;
  private stopped = false;
  private readonly debounceMs: number;
  private readonly minIntervalMs: number;

  constructor(private readonly options: HomeRefresherOptions) {
    this.debounceMs = options.debounceMs ?? 1000;
    this.minIntervalMs = options.minIntervalMs ?? 650;
  }

  /** People who opened their Home in this process, most recent last (at most 1,000 kept). */
  knownViewers(): string[] {
    return [...this.viewers];
  }

  /** `user` opened their Home: publish it now, and keep it current from here on. */
  async opened(user: string): Promise<void> {
    this.viewers.delete(user);
    this.viewers.add(user);
    if (this.viewers.size > 1000) this.viewers.delete(this.viewers.values().next().value as string);
    this.due.delete(user);
    await this.publishNow(user);
  }

  /** These people's inboxes changed: republish each once, after the debounce. */
  refresh(users: Iterable<string>): void {
    if (this.stopped) return;
    for (const user of users) this.due.add(user);
    if (this.due.size === 0 || this.timer || this.flushing) return;
    // The first change starts the window; later ones within it join the same publish.
    this.timer = setTimeout(() => void this.flush(), this.debounceMs);
    this.timer.unref();
  }

  /** Answers a click from the Home tab on the Home tab itself (a refusal, say), at once. */
  async notice(user: string, text: string): Promise<void> {
    this.due.delete(user);
    await this.publishNow(user, text);
  }

  /** Publishes what is due now (tests, shutdown) and resolves when nothing is being published. */
  async flushNow(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due.clear();
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      while (this.due.size > 0 && !this.stopped) {
        const user = this.due.values().next().value as string;
        this.due.delete(user);
        await this.publishNow(user);
      }
    })().finally(() => {
      this.flushing = undefined;
      // Someone whose inbox changed as the last publish ended is not left waiting for the next change.
      if (this.due.size > 0) this.refresh([]);
    });
    return this.flushing;
  }

  private async publishNow(user: string, notice?: string): Promise<void> {
    const wait = this.lastPublishAt + this.minIntervalMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.lastPublishAt = Date.now();
    try {
      await this.options.publish(user, notice);
    } catch (error) {
      this.options.logger.warn({ err: error, user }, 'Home tab could not be published');
    }
  }
}
