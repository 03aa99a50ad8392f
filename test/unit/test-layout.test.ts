/**
 * test/unit/ mirrors src/: a unit test sits in the folder of what it tests (test/unit/slack/card/
 * for src/slack/card/), named after its file or folder. The files at the top of test/unit/ are
 * either about a top-level file of src/ or checks of the whole repository (REPOSITORY_CHECKS).
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../helpers/source-tree.js';

const ROOT = resolve(import.meta.dirname, '../..');
const UNIT = join(ROOT, 'test/unit');

/** Checks of the repository as a whole, not of one part of src/. */
const REPOSITORY_CHECKS = ['import-cycles', 'import-rules', 'unused-exports', 'test-layout', 'package-exports', 'manifest'];

/** Where a unit test file is out of place, or nothing when it mirrors src/. */
function misplaced(file: string): string | undefined {
  const path = relative(UNIT, file);
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const subject = path.slice(path.lastIndexOf('/') + 1, -'.test.ts'.length);
  if (folder && !existsSync(join(ROOT, 'src', folder))) return `${path}: src/${folder}/ does not exist`;
  if (!folder && !REPOSITORY_CHECKS.includes(subject) && !existsSync(join(ROOT, 'src', `${subject}.ts`)) && !existsSync(join(ROOT, 'src', subject))) {
    return `${path}: at the top of test/unit/, but src/${subject}.ts is not a file of src/'s top level and it is no repository check`;
  }
  return undefined;
}

describe('test/unit/ mirrors src/', () => {
  const files = filesUnder(UNIT, (name) => name.endsWith('.test.ts'));

  it('every unit test file sits in the folder of what it tests', () => {
    expect(files.map(misplaced).filter(Boolean)).toEqual([]);
  });

  it('tells a misplaced file (the check can fail)', () => {
    expect(misplaced(join(UNIT, 'nowhere/thing.test.ts'))).toBe('nowhere/thing.test.ts: src/nowhere/ does not exist');
    expect(misplaced(join(UNIT, 'demo-model.test.ts'))).toMatch(/^demo-model\.test\.ts: at the top of test\/unit\//);
    expect(misplaced(join(UNIT, 'config.test.ts'))).toBeUndefined();
    expect(files.length).toBeGreaterThan(90);
  });
});
