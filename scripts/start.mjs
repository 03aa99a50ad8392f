/**
 * `npm start` in a clone of this repository: the bot from its build (dist/, which `npm install`
 * makes through `prepare`) when the build is current with src/, else from the sources through
 * tsx, so an edit not yet built runs as edited. Loading the bot through tsx's hooks costs each
 * start 3.4–4 s of CPU where the bundled build takes 0.8 s (some 900 modules, each resolved and
 * loaded through the hooks), for the same behaviour.
 *
 * Current means nothing under src/ (no file, and no folder: a file removed changes its folder) is
 * newer than the build's record, dist/.tsbuildinfo, which tsc rewrites whenever a build writes
 * anything (scripts/build-freshness.mjs), nor than dist/src/main.js, which `npm run build` bundles
 * after tsc (scripts/bundle-entries.ts): tsc run alone leaves the last bundle, built from older
 * sources, where main.ts did not change.
 *
 * Plain JavaScript, as it runs before tsx is loaded.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtSince } from './build-freshness.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILT_MAIN = join(ROOT, 'dist/src/main.js');

const built = existsSync(BUILT_MAIN) && builtSince([join(ROOT, 'dist/.tsbuildinfo'), BUILT_MAIN], [join(ROOT, 'src')]);
if (built) {
  await import(pathToFileURL(BUILT_MAIN).href);
} else {
  // What `node --import tsx` registers: tsx's hooks for ES modules and CommonJS.
  await import('tsx');
  await import(pathToFileURL(join(ROOT, 'src/main.ts')).href);
}
