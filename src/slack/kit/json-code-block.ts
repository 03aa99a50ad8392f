import { codeFence } from './mrkdwn/escape-mrkdwn.js';

interface JsonCodeBlock {
  /** mrkdwn: a code block holding the escaped, possibly truncated JSON. */
  text: string;
  /** Characters of the pretty-printed JSON that are shown. */
  shown: number;
  /** Characters of the whole pretty-printed JSON. */
  total: number;
  truncated: boolean;
}

/** Pretty JSON that never throws: tool arguments are whatever the model produced. */
export function prettyJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  const seen = new WeakSet<object>();
  try {
    const json = JSON.stringify(
      value,
      (_key, v: unknown) => {
        if (typeof v === 'bigint') return `${v.toString()}n`;
        if (typeof v === 'object' && v !== null) {
          if (seen.has(v)) return '[Circular]';
          seen.add(v);
        }
        return v;
      },
      2,
    );
    return json ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Renders `value` as a code block of at most `maxChars` mrkdwn characters (after escaping),
 * cutting visibly and reporting how much was shown so the card can say so.
 */
export function jsonCodeBlock(value: unknown, maxChars: number): JsonCodeBlock {
  const json = prettyJson(value);
  const whole = codeFence(json);
  if (whole.length <= maxChars) return { text: whole, shown: json.length, total: json.length, truncated: false };

  const fenced = (n: number): string => codeFence(json.slice(0, n) + '\n…');
  // Escaping only ever lengthens the text, so the fenced length grows with n (bisect), and no
  // more than maxChars characters of the JSON can fit.
  let lo = 0;
  let hi = Math.min(json.length, maxChars);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fenced(mid).length <= maxChars) lo = mid;
    else hi = mid - 1;
  }
  // A whole last line reads better than half of one, when that costs little.
  const lineEnd = json.lastIndexOf('\n', lo);
  let shown = lineEnd > lo * 0.9 ? lineEnd : lo;
  const code = json.charCodeAt(shown - 1);
  if (code >= 0xd800 && code <= 0xdbff) shown--;
  return { text: fenced(shown), shown, total: json.length, truncated: true };
}
