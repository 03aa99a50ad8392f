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
