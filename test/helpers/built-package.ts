import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { builtSince } from '../../scripts/build-freshness.mjs';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const LOCK = join(ROOT, 'dist/.build-lock');

/**
 * What `npm run build` writes every time it has something to do: tsc's build info (an
 * incremental build rewrites only the files that changed), the CommonJS entry
 * (scripts/build-commonjs.ts) and the bundled ES entries (scripts/bundle-entries.ts).
 */
const OUTPUTS = ['dist/.tsbuildinfo', 'dist/cjs/index.cjs', 'dist/src/main.js'];

const fresh = () =>
  builtSince(
    OUTPUTS.map((output) => join(ROOT, output)),
    [join(ROOT, 'src'), join(ROOT, 'scripts/build-commonjs.ts'), join(ROOT, 'scripts/bundle-entries.ts')],
  );

/**
 * Tests that import the package by name (as its users do) get its built copy
 * (dist/), as `npm run build` makes it. Built here when src/ is newer, once however many test files ask at
 * the same time (the first takes a lock; the others wait for it).
 */
export async function ensureBuiltPackage(): Promise<void> {
  for (let waited = 0; !fresh(); waited += 500) {
    mkdirSync(join(ROOT, 'dist'), { recursive: true });
    let locked = false;
    try {
      mkdirSync(LOCK);
      locked = true;
    } catch {
      // Another test file is building: wait for it (a lock older than 5 minutes was left by a killed run).
      if (waited > 300_000) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!fresh()) {
        // The build as package.json names it, so its steps are listed in one place.
        await run('npm', ['run', '--silent', 'build'], { cwd: ROOT, timeout: 300_000 });
        // A source saved unchanged leaves tsc nothing to write: mark the build as newer anyway.
        const now = new Date();
        utimesSync(join(ROOT, OUTPUTS[0]!), now, now);
      }
    } finally {
      if (locked) rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
