/**
 * `npm start` (scripts/start.mjs) runs the build when it is current with src/, else the sources
 * through tsx: an edit not yet built runs as edited. Checked on a copy of the script in a folder
 * of its own whose src/main.ts and dist/src/main.js say which of them ran (the main.ts in
 * TypeScript only tsx can load), with this repository's node_modules for tsx.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

let root: string;
/** Sets a file's or folder's modification time `secondsAgo` before now. */
const age = (path: string, secondsAgo: number) => {
  const at = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(join(root, path), at, at);
};
const started = async () => (await run(process.execPath, [join(root, 'scripts/start.mjs')], { cwd: root, timeout: 30_000 })).stdout.trim();

beforeEach(() => {
  root = tempDir('start-script');
  mkdirSync(join(root, 'scripts'));
  for (const file of ['start.mjs', 'build-freshness.mjs']) cpSync(join(ROOT, 'scripts', file), join(root, 'scripts', file));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  mkdirSync(join(root, 'src/agent'), { recursive: true });
  writeFileSync(join(root, 'src/main.ts'), "const from: string = 'the sources';\nconsole.log(from);\n");
  writeFileSync(join(root, 'src/agent/agent.ts'), 'export {};\n');
  mkdirSync(join(root, 'dist/src'), { recursive: true });
  writeFileSync(join(root, 'dist/src/main.js'), "console.log('the build');\n");
  writeFileSync(join(root, 'dist/.tsbuildinfo'), '{}');
  // The sources as the last build saw them, a minute ago; the build half a minute ago. (An edit
  // made "now" must not share the build's millisecond, which it would when written just after it.)
  for (const path of ['src/agent/agent.ts', 'src/agent', 'src/main.ts', 'src']) age(path, 60);
  age('dist/.tsbuildinfo', 30);
});

describe('npm start in a clone', () => {
  it('runs the build when nothing under src/ is newer than it', async () => {
    expect(await started()).toBe('the build');
  });

  it('runs the sources through tsx once a file below src/ is newer than the build, or once one is removed', async () => {
    age('src/agent/agent.ts', 0);
    expect(await started()).toBe('the sources');
    age('src/agent/agent.ts', 60);
    expect(await started()).toBe('the build');
    rmSync(join(root, 'src/agent/agent.ts'));
    expect(await started()).toBe('the sources');
  });

  it('runs the sources when tsc alone rebuilt after an edit: the bundled entry is older than the edit', async () => {
    age('src/agent/agent.ts', 20);
    age('dist/.tsbuildinfo', 10);
    age('dist/src/main.js', 30);
    expect(await started()).toBe('the sources');
    age('dist/src/main.js', 5);
    expect(await started()).toBe('the build');
  });

  it('runs the sources when there is no build (an install with --ignore-scripts)', async () => {
    rmSync(join(root, 'dist'), { recursive: true });
    expect(await started()).toBe('the sources');
  });
});
