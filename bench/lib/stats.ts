export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles. */
export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
  const mean = sorted.reduce((s, v) => s + v, 0) / (sorted.length || 1);
  return { n: sorted.length, p50: at(50), p90: at(90), p99: at(99), max: at(100), mean };
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function roundSummary(s: Summary, digits = 3): Summary {
  return { n: s.n, p50: round(s.p50, digits), p90: round(s.p90, digits), p99: round(s.p99, digits), max: round(s.max, digits), mean: round(s.mean, digits) };
}
