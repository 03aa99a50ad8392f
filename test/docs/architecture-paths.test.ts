/**
 * The docs name files of this repository; a rename or deletion must not leave them pointing at
 * nothing. Every repository path in backticks in README.md and docs/*.md (`src/…`, `migrations/…`,
 * `bench/…`, `test/…`, `examples/…`), and every entry of ARCHITECTURE.md's module tables (the
 * first cell of a row under a heading that names a folder, e.g. "### `src/agent/`"), and every file
 * of its path table (the last cell of a row whose first cell names a folder, e.g. "| `src/slack/card/` |"),
 * must exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** A repository path inside a backtick span; not part of a longer one (`dist/src/…`). */
const REPO_PATH = /(?<![\w./-])(?:src|migrations|bench|test|examples)\/[\w./*-]*/g;
/** What a module table names in its first cell: a file (with an extension) or a folder (trailing slash). */
const ENTRY = /^[\w.-]+(?:\/[\w.-]+)*(?:\.[a-z]+|\/)$/;

function backtickSpans(markdown: string): string[] {
  return [...markdown.matchAll(/(`+)([\s\S]*?[^`])\1(?!`)/g)].map((m) => m[2]!);
}

/** A path as named, or the folder before its first `*` (`src/slack/listeners/*`). */
function pathsIn(span: string): string[] {
  return [...span.matchAll(REPO_PATH)].map((m) => m[0].replace(/\.+$/, '').split('*')[0]!);
}

/** The module tables: `folder/` from a heading, joined with each backticked name in a row's first cell. */
function moduleEntries(markdown: string): string[] {
  const entries: string[] = [];
  let folder: string | undefined;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('#')) {
      folder = /^#+ `([\w./-]+\/)`/.exec(line)?.[1];
      continue;
    }
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (!folder || firstCell === undefined) continue;
    for (const name of backtickSpans(firstCell)) if (ENTRY.test(name)) entries.push(folder + name);
  }
  return entries;
}

/** The path table: a row whose first cell names a folder (`src/slack/card/`) names that folder's files in its last cell. */
function pathTableEntries(markdown: string): string[] {
  const entries: string[] = [];
  for (const line of markdown.split('\n')) {
    const cells = line.startsWith('|') ? line.split('|').slice(1, -1) : [];
    const folder = backtickSpans(cells[0] ?? '').find((span) => /^(?:src|migrations|bench|test|examples)\/(?:[\w.-]+\/)*$/.test(span));
    if (!folder || cells.length < 2) continue;
    for (const name of backtickSpans(cells.at(-1)!)) if (ENTRY.test(name)) entries.push(folder + name);
  }
  return entries;
}

describe('paths named in the docs', () => {
  it('finds the module tables and the path table it checks (the parser still matches the document)', () => {
    const architecture = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    const entries = moduleEntries(architecture);
    expect(entries).toContain('src/agent/step-loop.ts');
    expect(entries.length).toBeGreaterThan(100);
    expect(pathTableEntries(architecture)).toContain('src/slack/card/show-card.ts');
  });

  it('resolves table entries against their heading and ignores what is not a path', () => {
    const doc = ['### `src/agent/`', '| file | what |', '|---|---|', '| `a.ts`, `b/` | `c.ts` is not first |', '| `fn()` | x |', '## Other', '| `d.ts` | x |'];
    expect(moduleEntries(doc.join('\n'))).toEqual(['src/agent/a.ts', 'src/agent/b/']);
    expect(pathTableEntries('| folder | files |\n|---|---|\n| `src/slack/card/` (its own) | `show-card.ts`, `x/` |\n| `fn()` | `y.ts` |')).toEqual(['src/slack/card/show-card.ts', 'src/slack/card/x/']);
    expect(pathsIn('see dist/src/x.ts and src/slack/listeners/* or `test/a.test.ts`.')).toEqual(['src/slack/listeners/', 'test/a.test.ts']);
  });

  for (const doc of DOCS) {
    it(`${doc} names only paths that exist`, () => {
      const markdown = readFileSync(join(ROOT, doc), 'utf8');
      const named = new Set([...backtickSpans(markdown).flatMap(pathsIn), ...(doc === 'docs/ARCHITECTURE.md' ? [...moduleEntries(markdown), ...pathTableEntries(markdown)] : [])]);
      const missing = [...named].filter((path) => !existsSync(join(ROOT, path)));
      expect(missing, `${doc} names paths that do not exist: ${missing.join(', ')}`).toEqual([]);
    });
  }
});
