/** How the demo model writes amounts, answers, lists and sentences, the same way in every reply. */

export function usd(cents: number): string {
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `$${whole}.${String(cents % 100).padStart(2, '0')}`;
}

export function formatAnswer(answer: unknown): string {
  if (Array.isArray(answer)) return list(answer.map((a) => code(String(a))));
  if (typeof answer === 'string') return code(answer);
  return code(JSON.stringify(answer) ?? 'nothing');
}

export function list(items: string[]): string {
  if (items.length <= 1) return items[0] ?? 'nothing';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

export function quote(text: string): string {
  return `"${text}"`;
}

export function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]["')]?$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** `2026-12-01T23:01:44.253Z` → `on 2026-12-01 at 23:01 UTC`: read by people in the thread, in any zone. */
export function when(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `on ${m[1]} at ${m[2]} UTC` : `at ${iso}`;
}
