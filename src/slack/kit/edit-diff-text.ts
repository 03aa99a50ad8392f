import type { ArgChange } from '../../approvals/args-diff.js';
import { inlineCode, escapeMrkdwn } from './mrkdwn/escape-mrkdwn.js';
import { truncate } from './limits.js';
import { mention } from './mention.js';

/** How one argument value is shown (mrkdwn, already escaped); the key lets a formatter know what it shows. */
export type EditValueFormatter = (value: unknown, key: string) => string;

/** How an argument is named (plain text; escaped where it is shown). The default is the key itself. */
export type EditKeyLabel = (key: string) => string;

/** The default: the value's JSON as inline code, cut to a readable length. */
export const jsonValue: EditValueFormatter = (value) => (value === undefined ? '_(none)_' : inlineCode(truncate(JSON.stringify(value) ?? 'null', 200)));

/**
 * "Edited by @carol: amount `150050` → `100000`": the changed arguments only, each as the
 * formatter shows it, at most `maxChars` long (the rest counted, not shown). Pure; mrkdwn with
 * every key escaped.
 */
export function editDiffText(
  editor: string,
  changes: readonly ArgChange[],
  format: EditValueFormatter = jsonValue,
  maxChars = 2000,
  label: EditKeyLabel = (key) => key,
): string {
  const head = `:pencil2: Edited by ${mention(editor)}`;
  if (changes.length === 0) return `${head} (no argument changed)`;
  const parts: string[] = [];
  let used = head.length + 2;
  for (const [i, c] of changes.entries()) {
    const part = `${escapeMrkdwn(truncate(label(c.key), 80))} ${format(c.before, c.key)} → ${format(c.after, c.key)}`;
    const rest = changes.length - i;
    if (used + part.length + 2 > maxChars - 30) {
      parts.push(`and ${rest} more ${rest === 1 ? 'change' : 'changes'}`);
      break;
    }
    parts.push(part);
    used += part.length + 2;
  }
  return `${head}: ${parts.join(', ')}`;
}
