import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `relative` (e.g. `migrations`) in this package's root: the nearest folder above this module with
 * a package.json and that path. This module sits at a different depth in each form the code runs
 * in (src/ under tsx and vitest, dist/src/ as tsc emits it, a shared chunk of the bundled entries
 * in dist/src/chunks/, dist/cjs/), so nothing is found by a fixed number of `..`.
 */
export function packagePath(relative: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, relative);
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${relative} not found in any folder above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
