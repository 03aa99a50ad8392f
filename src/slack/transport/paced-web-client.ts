import { webApi } from '@slack/bolt';

/** Where every method starts: about Tier 3's 50 a minute. */
const START_PER_MINUTE = 60;
/** Calls that go at once after a quiet spell, as Slack allows short bursts above its tiers. */
const BURST = 10;
/** Tier 1 (about 1 a minute) is the slowest Slack has; no method allows more than 100 a second for long. */
const MIN_PER_MINUTE = 1;
const MAX_PER_MINUTE = 6_000;
/**
 * Each call that goes through while others wait speeds the method up by this much: fast until
 * Slack first refuses one (slow start, as TCP's: the pace doubles about every seven calls), then
 * slowly, to stay near the limit it found.
 */
const SPEED_UP_UNTIL_LIMITED = 1.1;
const SPEED_UP = 1.02;
/** A 429 slows it down by this much, besides waiting out Retry-After. */
const SLOW_DOWN = 0.7;

/**
 * One method's pace, found as Slack allows it: a token bucket (bursts of BURST) refilled at a rate
 * that each call going through while others wait raises and each 429 cuts, with every call held
 * until its Retry-After has passed (slow start, then additive increase and multiplicative
 * decrease, as TCP finds a link's rate). A method used now and then never waits.
 */
export class MethodPace {
  private perMs = START_PER_MINUTE / 60_000;
  private everLimited = false;
  private tokens = BURST;
  private at = performance.now();
  private readonly waiting: Array<{ go: () => void; stop: (error: Error) => void }> = [];
  private timer: NodeJS.Timeout | undefined;

  /** Calls a minute at the current pace. */
  get perMinute(): number {
    return this.perMs * 60_000;
  }

  /** Resolves when the next call may start. */
  turn(): Promise<void> {
    return new Promise((go, stop) => {
      this.waiting.push({ go, stop });
      this.pump();
    });
  }

  succeeded(): void {
    // Only a method kept waiting has a pace to find; one used now and then stays where it is.
    if (this.waiting.length > 0) this.perMs = Math.min(MAX_PER_MINUTE / 60_000, this.perMs * (this.everLimited ? SPEED_UP : SPEED_UP_UNTIL_LIMITED));
  }

  /** Slack refused a call (this client's or the app's): slower, and nothing before `retryAfterS`. */
  limited(retryAfterS: number): void {
    const now = performance.now();
    // The calls that were in flight together hear the same 429: one cut for them all.
    if (now >= this.at) this.perMs = Math.max(MIN_PER_MINUTE / 60_000, this.perMs * SLOW_DOWN);
    this.everLimited = true;
    // One call goes when Retry-After has passed, the rest at the new pace.
    this.tokens = 1;
    this.at = Math.max(this.at, now + Math.max(0, retryAfterS) * 1000);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pump();
  }

  /** The calls still waiting fail with `error` (a stop). */
  drop(error: Error): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const call of this.waiting.splice(0)) call.stop(error);
  }

  private pump(): void {
    while (!this.timer && this.waiting.length > 0) {
      const now = performance.now();
      // `at` lies ahead while a Retry-After is being waited out: nothing refills before it.
      if (now > this.at) {
        this.tokens = Math.min(BURST, this.tokens + (now - this.at) * this.perMs);
        this.at = now;
      }
      const wait = now < this.at ? this.at - now : this.tokens >= 1 ? 0 : (1 - this.tokens) / this.perMs;
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, Math.ceil(wait));
        return;
      }
      this.tokens -= 1;
      this.waiting.shift()!.go();
    }
  }
}

/** A call of the backlog's not sent because the app is stopping. */
export class PacedClientStoppedError extends Error {
  readonly code = 'SWEEP_STOPPED';
  constructor() {
    super('the app is stopping: this call of the sweep was not sent');
    this.name = 'PacedClientStoppedError';
  }
}

/** The method of a Web API URL (`…/api/chat.update` → `chat.update`). */
function methodOf(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

/**
 * A Web API client for the sweep's backlog (thousands of card redraws and notices at once), beside
 * the app's own. Each method goes at its own pace, found as Slack allows it (MethodPace), and a 429
 * is this client's alone: the app's client pauses every call on a 429 until Retry-After, so a
 * backlog sent through it would hold up the clicks people are waiting on. When the app's client is
 * rate-limited on a method (Slack limits an app per method and workspace), the backlog slows down on
 * that method too, leaving Slack's allowance to the people.
 */
export class PacedWebClient extends webApi.WebClient {
  private readonly paces = new Map<string, MethodPace>();
  private stopped = false;

  constructor(token: string, options: webApi.WebClientOptions, appClient?: webApi.WebClient) {
    super(token, { ...options, rejectRateLimitedCalls: true });
    appClient?.on(webApi.WebClientEvent.RATE_LIMITED, (retryAfterS: number, request: { url?: string }) => {
      if (request?.url) this.paceOf(methodOf(request.url)).limited(retryAfterS);
    });
  }

  /** The pace of `method` now, in calls a minute (for logs and the bench). */
  perMinute(method: string): number {
    return this.paceOf(method).perMinute;
  }

  /**
   * Calls not yet sent fail with PacedClientStoppedError, now and from here on: what they would
   * have shown is the sweep's to find again (another instance's, or this one's after a restart).
   */
  stop(): void {
    this.stopped = true;
    for (const pace of this.paces.values()) pace.drop(new PacedClientStoppedError());
  }

  override async apiCall(method: string, options?: Record<string, unknown>): Promise<webApi.WebAPICallResult> {
    const pace = this.paceOf(method);
    for (;;) {
      if (this.stopped) throw new PacedClientStoppedError();
      await pace.turn();
      try {
        const result = await super.apiCall(method, options);
        pace.succeeded();
        return result;
      } catch (error) {
        const limited = error as Partial<webApi.WebAPIRateLimitedError>;
        if (limited.code !== webApi.ErrorCode.RateLimitedError) throw error;
        pace.limited(limited.retryAfter ?? 1);
      }
    }
  }

  private paceOf(method: string): MethodPace {
    let pace = this.paces.get(method);
    if (!pace) this.paces.set(method, (pace = new MethodPace()));
    return pace;
  }
}
