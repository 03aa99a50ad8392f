/**
 * The docs' pictures come from the browser tests (docsScreenshot in test/helpers/sandbox-page.ts,
 * written into docs/ with UPDATE_SCREENSHOTS=1), so they show the product as it is. This fails
 * for a picture the README or docs/*.md show that no test takes, and for a picture in docs/ that
 * nothing shows any more.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
}

/** `docs/x.png` for every image a Markdown file shows (`![…](…)` or `<img src>`), relative to the repository. */
function picturesShown(): Map<string, string> {
  const shown = new Map<string, string>();
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const m of text.matchAll(/!\[[^\]]*\]\(([^)\s]+)[^)]*\)|<img[^>]+src="([^"]+)"/g)) {
      const target = (m[1] ?? m[2])!;
      if (/^https?:/.test(target)) continue;
      const path = doc.startsWith('docs/') ? `docs/${target.replace(/^\.\//, '')}` : target.replace(/^\.\//, '');
      shown.set(path, doc);
    }
  }
  return shown;
}

/** The names the tests pass to docsScreenshot(page, '<name>'). */
function picturesTaken(): Set<string> {
  const taken = new Set<string>();
  for (const file of filesUnder('test').filter((f) => f.endsWith('.ts'))) {
    for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/docsScreenshot\(\s*\w+\s*,\s*'([^']+)'\s*\)/g)) taken.add(`docs/${m[1]}`);
  }
  return taken;
}

describe('the docs’ screenshots', () => {
  it('every picture the docs show is one a browser test takes', () => {
    const shown = picturesShown();
    expect([...shown.keys()]).toEqual(expect.arrayContaining(['docs/sandbox-approval-card.png', 'docs/sandbox-answered-thread.png']));
    const taken = picturesTaken();
    expect([...shown].filter(([path]) => !taken.has(path)).map(([path, doc]) => `${doc} shows ${path}, which no test takes with docsScreenshot`)).toEqual([]);
  });

  it('every picture in docs/ is shown somewhere', () => {
    const shown = picturesShown();
    const pictures = readdirSync(join(ROOT, 'docs')).filter((f) => /\.(png|jpe?g|gif|svg)$/.test(f));
    expect(pictures.map((f) => `docs/${f}`).filter((path) => !shown.has(path))).toEqual([]);
  });
});
