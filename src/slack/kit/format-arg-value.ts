import type { JSONSchema7 } from '@ai-sdk/provider';
import { escapeMrkdwn, inlineCode, slackDate, codeFence } from './mrkdwn/escape-mrkdwn.js';
import { truncate } from './limits.js';

/** What a value is shown with besides itself: its key, its schema and the call's currency argument. */
interface ArgValueContext {
  key: string;
  schema?: JSONSchema7 | undefined;
  /** The call's `currency` argument, when it has one (an ISO 4217 code such as "EUR"). */
  currency?: unknown;
  /** Characters of the value itself before escaping (default 300). */
  maxChars?: number;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** A key or description that says the number is an amount in cents (minor units). */
export function isMoneyInCents(key: string, schema?: JSONSchema7): boolean {
  if (/(Cents|_cents)$/.test(key) || /^cents$/i.test(key)) return true;
  const description = typeof schema?.description === 'string' ? schema.description : '';
  return /\bcents?\b/i.test(description);
}

/**
 * One argument's value as mrkdwn for a card: money in cents as currency, enum values and
 * booleans in words, dates in the reader's time zone, anything nested as compact JSON in
 * inline code. Everything model-controlled is escaped; the result never holds a raw `<`
 * except Slack's own date token.
 */
export function formatArgValue(value: unknown, ctx: ArgValueContext): string {
  const max = ctx.maxChars ?? 300;
  if (value === null || value === undefined) return '_none_';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return escapeMrkdwn(String(value));
    if (isMoneyInCents(ctx.key, ctx.schema)) return formatCents(value, ctx.currency);
    return escapeMrkdwn(String(value));
  }
  if (typeof value === 'string') {
    if (value.trim() === '') return '_empty_';
    if (isEnumValue(value, ctx.schema)) return escapeMrkdwn(truncate(humanizeWords(value), max));
    const date = dateOf(value, ctx.schema);
    if (date) return date;
    return escapeMrkdwn(truncate(value, max));
  }
  if (typeof value === 'bigint') return escapeMrkdwn(value.toString());
  return inlineCode(truncate(compactJson(value), max));
}

/** `150050` cents → `$1,500.50`; the currency argument, when it names one, picks the code. */
export function formatCents(cents: number, currency?: unknown): string {
  const format = currencyFormat(currency);
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return escapeMrkdwn(format.format(cents / 10 ** digits));
}

function currencyFormat(currency: unknown): Intl.NumberFormat {
  if (typeof currency === 'string' && /^[A-Za-z]{3}$/.test(currency.trim())) {
    try {
      return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.trim().toUpperCase() });
    } catch {
      // An unknown code: shown in dollars, as if no currency had been given.
    }
  }
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
}

function isEnumValue(value: string, schema: JSONSchema7 | undefined): boolean {
  if (!schema) return false;
  if (Array.isArray(schema.enum) && schema.enum.includes(value)) return true;
  if (schema.const === value) return false;
  const options = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  return options.some((option) => typeof option === 'object' && (option.const === value || (Array.isArray(option.enum) && option.enum.includes(value))));
}

/** A date or date-time string as Slack's date token (each reader's own time zone), or undefined. */
function dateOf(value: string, schema: JSONSchema7 | undefined): string | undefined {
  const format = schema?.format;
  const text = value.trim();
  if (format === 'date' || (format === undefined && ISO_DATE.test(text))) {
    if (!ISO_DATE.test(text)) return undefined;
    // Noon UTC is the same calendar day almost everywhere, so the reader sees the date given.
    const noon = new Date(`${text}T12:00:00Z`);
    return Number.isFinite(noon.getTime()) ? `<!date^${Math.floor(noon.getTime() / 1000)}^{date_short_pretty}|${text}>` : undefined;
  }
  if (format === 'date-time' || ISO_DATE_TIME.test(text)) {
    const at = new Date(text);
    return Number.isFinite(at.getTime()) && ISO_DATE_TIME.test(text) ? slackDate(at) : undefined;
  }
  return undefined;
}

/** JSON on one line that never throws (arguments are whatever the model produced). */
function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v.toString()}n` : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Words written in capitals wherever they appear in a label. */
const ACRONYMS = new Set(['id', 'ids', 'url', 'uri', 'api', 'ip', 'sql', 'json', 'http', 'https', 'ssh', 'dns', 'eu', 'us', 'uk', 'sku', 'vat', 'iban', 'cpu', 'gpu']);

/** `issue_refund`, `issueRefund`, `issue-refund` → `["issue", "refund"]`. */
function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_\-.]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** A name in words, first letter capital: "issue_refund" → "Issue refund"; codes such as "USD" stay as written. */
export function humanizeWords(text: string): string {
  if (/^[A-Z0-9]+(_[A-Z0-9]+)*$/.test(text) && /[A-Z]/.test(text)) return text.replace(/_/g, ' ');
  const words = splitWords(text);
  if (words.length === 0) return text;
  const sentence = words.join(' ');
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/** An argument's key as a label: "amountCents" → "Amount", "order_id" → "Order ID". */
export function humanizeKey(key: string): string {
  let words = splitWords(key);
  // The unit is said by the value ("$1,500.50"), not the label.
  if (words.length > 1 && words.at(-1) === 'cents') words = words.slice(0, -1);
  if (words.length === 0) return key;
  const label = words.map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w)).join(' ');
  return label.charAt(0).toUpperCase() + label.slice(1);
}

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
