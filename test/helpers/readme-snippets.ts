import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** The README's code blocks by the name in the `<!-- snippet: name -->` line before each. */
export function readmeSnippets(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const snippets = new Map<string, string>();
  const blocks = [...readme.matchAll(/(?:<!-- snippet: ([a-z0-9-]+) -->\n)?```(ts|typescript|js|javascript)\n([\s\S]*?)```/g)];
  for (const [, name, , code] of blocks) {
    if (!name) throw new Error(`a README code block has no <!-- snippet: name --> line, so no test runs it:\n${code!.slice(0, 200)}`);
    snippets.set(name, code!);
  }
  return snippets;
}
