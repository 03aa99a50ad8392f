import { expect } from 'vitest';

/** Strings that would notify people, or link somewhere, if they reached mrkdwn unescaped. */
export const INJECTIONS = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<@U123>',
  '<!subteam^S1>',
  '<#C123>',
  '<https://evil.example|click me>',
];
export const INJECTION = INJECTIONS.join(' ');

interface FoundText {
  path: string;
  type: 'plain_text' | 'mrkdwn';
  text: string;
  verbatim?: unknown;
}

/** Every text object anywhere in blocks or a view, with where it was found. */
export function textsIn(node: unknown, path = '$'): FoundText[] {
  if (Array.isArray(node)) return node.flatMap((child, i) => textsIn(child, `${path}[${i}]`));
  if (typeof node !== 'object' || node === null) return [];
  const obj = node as Record<string, unknown>;
  const found: FoundText[] = [];
  if ((obj.type === 'plain_text' || obj.type === 'mrkdwn') && typeof obj.text === 'string') {
    found.push({ path, type: obj.type, text: obj.text, verbatim: obj.verbatim });
  }
  for (const [key, value] of Object.entries(obj)) found.push(...textsIn(value, `${path}.${key}`));
  return found;
}

export function allText(node: unknown): string {
  return textsIn(node)
    .map((t) => t.text)
    .join('\n');
}

/** The raw `<…>` tokens builders may emit themselves. */
const TOKEN = /^<(?:@([UW][A-Z0-9]+)|!subteam\^(S[A-Z0-9]+)|!date\^\d+\^[^|<>]*\|[^|<>]*|(?:https?:\/\/|mailto:)[^|<>\s]+(?:\|[^<>]*)?)>$/;

/**
 * Asserts no mrkdwn text can notify or link anywhere the builder did not intend: no injection
 * string appears, every `<…>` is a token the builders create (mentioning only `allowedIds`),
 * and Slack's automatic parsing is off. plain_text is exempt: Slack never parses it, which is
 * why headers and labels carry the raw text.
 */
export function expectNoInjection(node: unknown, allowedIds: readonly string[] = []): void {
  for (const t of textsIn(node)) {
    if (t.type !== 'mrkdwn') continue;
    for (const injection of INJECTIONS) expect(t.text, `${t.path} contains ${injection}`).not.toContain(injection);
    expect(t.verbatim, `${t.path} must set verbatim`).toBe(true);
    expect(t.text, `${t.path} has an unclosed <`).not.toMatch(/<[^>]*$/);
    for (const token of t.text.match(/<[^>]*>/g) ?? []) {
      const m = TOKEN.exec(token);
      expect(m, `${t.path}: unexpected token ${token}`).not.toBeNull();
      const id = m?.[1] ?? m?.[2];
      if (id !== undefined) expect(allowedIds, `${t.path}: mentions ${id}`).toContain(id);
    }
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** No lone surrogate halves: a truncation must never cut an emoji in two. */
export function expectWellFormed(node: unknown): void {
  for (const t of textsIn(node)) expect(t.text, `${t.path} is not well-formed UTF-16`).not.toMatch(LONE_SURROGATE);
}
