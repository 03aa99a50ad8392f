import type { Logger } from '../../logger.js';

export interface HomeRefresherOptions {
  /** Republishes one person's Home (with a notice on top when given). */
  publish: (user: string, notice?: string) => Promise<void>;
  /** Records that `user` opened their Home (kept across instances). */
  recordViewer: (user: string) => Promise<void>;
  /** Of these people, those who have a Home to keep current; 'everyone': all who do. */
  viewersAmong: (users: string[] | 'everyone') => Promise<string[]>;
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
 * Keeps Home tabs current without flooding Slack: people whose inbox changed are collected and,
 * after a quiet moment, those of them who have a Home (they opened it once; Slack shows none
 * before) are published once each, one call at a time and spaced to stay under views.publish's
 * rate limit. It runs after the work that changed something, never before a click's
 * acknowledgement, and costs nothing on the runtime's path.
 */
export class HomeRefresher {
  private readonly due = new Set<string>();
  private everyoneDue = false;
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

  /** `user` opened their Home: publish it now, and keep it current from here on (on every instance). */
  async opened(user: string): Promise<void> {
    this.due.delete(user);
    try {
      await this.options.recordViewer(user);
    } catch (error) {
      this.options.logger.warn({ err: error, user }, 'Home viewer could not be recorded');
    }
    await this.publishNow(user);
  }

  /** These people's inboxes changed (with `everyone`: everyone's who may decide): republish each once, after the debounce. */
  refresh(users: Iterable<string>, everyone = false): void {
    if (this.stopped) return;
    for (const user of users) this.due.add(user);
    if (everyone) this.everyoneDue = true;
    if ((this.due.size === 0 && !this.everyoneDue) || this.timer || this.flushing) return;
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
    this.everyoneDue = false;
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      while ((this.due.size > 0 || this.everyoneDue) && !this.stopped) {
        const asked = this.everyoneDue ? 'everyone' : [...this.due];
        this.due.clear();
        this.everyoneDue = false;
        let viewers: string[];
        try {
          viewers = await this.options.viewersAmong(asked);
        } catch (error) {
          this.options.logger.warn({ err: error }, 'Home viewers could not be read; Homes update when next opened');
          continue;
        }
        for (const user of viewers) {
          if (this.stopped) return;
          await this.publishNow(user);
        }
      }
    })().finally(() => {
      this.flushing = undefined;
      // Someone whose inbox changed as the last publish ended is not left waiting for the next change.
      if (this.due.size > 0 || this.everyoneDue) this.refresh([]);
    });
    return this.flushing;
  }

  private async publishNow(user: string, notice?: string): Promise<void> {
    const wait = this.lastPublishAt + this.minIntervalMs - Date.now();
    this.lastPublishAt = Math.max(Date.now(), this.lastPublishAt + this.minIntervalMs);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      await this.options.publish(user, notice);
    } catch (error) {
      this.options.logger.warn({ err: error, user }, 'Home tab could not be published');
    }
  }
}
