/**
 * Slack message timestamps: "<seconds>.<6-digit micros>", unique per channel, and the message's
 * identity. They come from the wall clock (so `<!date^…>` and "3:04 PM" read right) but never
 * repeat or go backwards, even for two messages in the same microsecond.
 */

function tsToMicros(ts: string): bigint {
  const [sec = '0', frac = ''] = ts.split('.');
  if (!/^\d+$/.test(sec) || !/^\d*$/.test(frac)) return -1n;
  return BigInt(sec) * 1_000_000n + BigInt(frac.padEnd(6, '0').slice(0, 6) || '0');
}

function microsToTs(micros: bigint): string {
  return `${micros / 1_000_000n}.${String(micros % 1_000_000n).padStart(6, '0')}`;
}

export function compareTs(a: string, b: string): number {
  const d = tsToMicros(a) - tsToMicros(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

export function isTs(value: string): boolean {
  return /^\d{1,12}\.\d{1,6}$/.test(value);
}

/** Where new ts come from: they increase, and stay after any message put back with its own ts. */
export interface TsSource {
  next(): string;
  advancePast(ts: string): void;
}

/** The wall clock, for a store whose messages outlive the run (the sandbox's). */
export class TsClock implements TsSource {
  private last = 0n;

  constructor(private readonly now: () => number = Date.now) {}

  next(): string {
    const micros = BigInt(this.now()) * 1000n;
    this.last = micros > this.last ? micros : this.last + 1n;
    return microsToTs(this.last);
  }

  /** After restoring saved messages: new ones must sort after them even if the clock went back. */
  advancePast(ts: string): void {
    const micros = tsToMicros(ts);
    if (micros > this.last) this.last = micros;
  }
}

/** Seconds since the epoch as Slack puts them in `event_time`. */
export function tsSeconds(ts: string): number {
  return Number(ts.split('.')[0] ?? 0);
}

/** ts values 100 µs apart from a fixed start, so a test's ts are the same on every run. */
export class StepClock implements TsSource {
  private static readonly STEP = 100n;
  private nextMicros: bigint;

  constructor(firstTs: string) {
    this.nextMicros = tsToMicros(firstTs);
  }

  next(): string {
    const ts = microsToTs(this.nextMicros);
    this.nextMicros += StepClock.STEP;
    return ts;
  }

  advancePast(ts: string): void {
    const micros = tsToMicros(ts);
    if (micros >= this.nextMicros) this.nextMicros = micros + StepClock.STEP;
  }
}
