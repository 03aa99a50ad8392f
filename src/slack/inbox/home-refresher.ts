import type { Logger } from '../../logger.js';
import type { HomeTabs } from '../context.js';

interface HomeRefresherOptions {
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
  /**
   * Most people waiting for a background refresh (default 1000, about eleven minutes of
   * publishes at the default spacing). Past it the oldest waiting refresh is dropped (logged),
   * and that Home is drawn afresh when next opened; an open or a notice is never dropped.
   */
  maxWaiting?: number;
}

/** One person's next publish: a person waits in the queue once, however often they are asked for. */
interface Waiting {
  /** Opened or clicked on by the person (never dropped), rather than changed by someone else's work. */
  explicit: boolean;
  notice?: string;
  done: Array<() => void>;
}

const HOME_MAX_WAITING = 1000;

/**
 * Keeps Home tabs current without flooding Slack or letting one person crowd out another.
 *
 * Every publish goes through one queue of people, served one call at a time and spaced to stay
 * under views.publish's rate limit. A person is in the queue at most once: asking again while
 * they wait changes nothing but the notice (the newest one wins), since a publish draws the inbox
 * as it is when it goes out. People are served in the order they started waiting, and someone
 * asked for again after being served goes to the back, so a flood of opens by one person costs
 * everyone else at most one publish of theirs. Opening the Home (and a notice answering a
 * click) joins the queue at once; people whose inbox changed are collected for a quiet moment
 * first, and only those who have a Home (they opened it once; Slack shows none before) join.
 * Publishing runs after the work that changed something, never before a click's
 * acknowledgement, and costs nothing on the runtime's path.
 */
export class HomeRefresher implements HomeTabs {
  /** Insertion order is who has waited longest. */
  private readonly waiting = new Map<string, Waiting>();
  private readonly due = new Set<string>();
  private everyoneDue = false;
  private timer: NodeJS.Timeout | undefined;
  private resolving: Promise<void> | undefined;
  private pumping: Promise<void> | undefined;
  private lastPublishAt = Number.NEGATIVE_INFINITY;
  private dropped = 0;
  private stopped = false;
  private readonly debounceMs: number;
  private readonly minIntervalMs: number;
  private readonly maxWaiting: number;

  constructor(private readonly options: HomeRefresherOptions) {
    this.debounceMs = options.debounceMs ?? 1000;
    this.minIntervalMs = options.minIntervalMs ?? 650;
    this.maxWaiting = options.maxWaiting ?? HOME_MAX_WAITING;
  }

  /**
   * `user` opened their Home: it is published in its turn (resolves once it is), and kept current
   * from here on (on every instance). Opens while one is waiting join it.
   */
  async opened(user: string): Promise<void> {
    const joined = this.waiting.get(user)?.explicit === true;
    const published = this.enqueue(user, { explicit: true });
    // An open that joins a waiting one was recorded by that one.
    const recorded = joined
      ? undefined
      : this.options.recordViewer(user).catch((error: unknown) => this.options.logger.warn({ err: error, user }, 'Home viewer could not be recorded'));
    await Promise.all([published, recorded]);
  }

  /** These people's inboxes changed (with `everyone`: everyone's who may decide): republish each once, after the debounce. */
  refresh(users: Iterable<string>, everyone = false): void {
    if (this.stopped) return;
    for (const user of users) this.due.add(user);
    if (everyone) this.everyoneDue = true;
    if ((this.due.size === 0 && !this.everyoneDue) || this.timer || this.resolving) return;
    // The first change starts the window; later ones within it join the same publish.
    this.timer = setTimeout(() => void this.resolveDue(), this.debounceMs);
    this.timer.unref();
  }

  /** Publishes `user`'s Home in their turn, as they asked (the next page, say); resolves once it is published. */
  async republish(user: string): Promise<void> {
    await this.enqueue(user, { explicit: true });
  }

  /** Answers a click from the Home tab on the Home tab itself (a refusal, say), in the person's turn. */
  async notice(user: string, text: string): Promise<void> {
    await this.enqueue(user, { explicit: true, notice: text });
  }

  /** Publishes everything due now (tests, shutdown) and resolves when nothing waits. */
  async flushNow(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.resolveDue();
    while (this.pumping) await this.pumping;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due.clear();
    this.everyoneDue = false;
    for (const entry of this.waiting.values()) entry.done.forEach((resolve) => resolve());
    this.waiting.clear();
  }

  /** Puts `user` in the queue, or updates their place in it; resolves when their publish is done (or dropped). */
  private enqueue(user: string, request: { explicit: boolean; notice?: string }): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const entry = this.waiting.get(user);
      if (entry) {
        entry.explicit ||= request.explicit;
        if (request.notice !== undefined) entry.notice = request.notice;
        entry.done.push(resolve);
        return;
      }
      if (this.waiting.size >= this.maxWaiting && !this.makeRoom(user, request.explicit)) return resolve();
      this.waiting.set(user, { explicit: request.explicit, ...(request.notice !== undefined ? { notice: request.notice } : {}), done: [resolve] });
      this.pump();
    });
  }

  /**
   * The queue is full: drops the longest-waiting background refresh to let `user` in. Returns
   * false (and `user`'s refresh is the one dropped) when only opens and notices wait and this is
   * a background refresh; an open or a notice is let in even then.
   */
  private makeRoom(user: string, explicit: boolean): boolean {
    let victim: string | undefined;
    for (const [waitingUser, entry] of this.waiting) {
      if (!entry.explicit) {
        victim = waitingUser;
        break;
      }
    }
    if (victim === undefined && explicit) return true;
    const droppedUser = victim ?? user;
    if (victim !== undefined) {
      this.waiting.get(victim)!.done.forEach((resolve) => resolve());
      this.waiting.delete(victim);
    }
    this.dropped += 1;
    // The first drop of a flood is logged at once, the total when the queue has drained.
    if (this.dropped === 1) {
      this.options.logger.warn({ user: droppedUser, maxWaiting: this.maxWaiting }, 'Home refresh dropped: too many people waiting; that Home is drawn afresh when next opened');
    }
    return victim !== undefined;
  }

  private pump(): void {
    if (this.pumping || this.stopped) return;
    this.pumping = this.serve().finally(() => {
      this.pumping = undefined;
      if (this.waiting.size > 0) this.pump();
    });
  }

  private async serve(): Promise<void> {
    while (this.waiting.size > 0 && !this.stopped) {
      // Waited out before choosing, so whoever asks meanwhile joins their place in the queue.
      const wait = this.lastPublishAt + this.minIntervalMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      const next = this.waiting.entries().next();
      if (next.done || this.stopped) return;
      const [user, entry] = next.value;
      this.waiting.delete(user);
      this.lastPublishAt = Date.now();
      try {
        await this.options.publish(user, entry.notice);
      } catch (error) {
        this.options.logger.warn({ err: error, user }, 'Home tab could not be published');
      }
      entry.done.forEach((resolve) => resolve());
    }
    if (this.dropped > 1) this.options.logger.warn({ dropped: this.dropped, maxWaiting: this.maxWaiting }, 'Home refreshes dropped while too many people waited');
    this.dropped = 0;
  }

  /** Turns the people whose inbox changed into queued publishes for those of them who have a Home. */
  private async resolveDue(): Promise<void> {
    this.timer = undefined;
    if (this.resolving) return this.resolving;
    this.resolving = (async () => {
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
        for (const user of viewers) void this.enqueue(user, { explicit: false });
      }
    })().finally(() => {
      this.resolving = undefined;
      // Someone whose inbox changed during the lookup is not left waiting for the next change.
      if (this.due.size > 0 || this.everyoneDue) this.refresh([]);
    });
    return this.resolving;
  }
}
