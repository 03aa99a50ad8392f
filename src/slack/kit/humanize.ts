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
