import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree } from 'dpdm';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Every import cycle among the files the globs match. Type-only imports count (`transform: false`
 * keeps them): a cycle through types still means two files cannot be read or changed apart.
 */
async function importCycles(cwd: string, globs: string[]): Promise<string[][]> {
  // dpdm resolves `./x.js` to `./x.ts` through the tsconfig.json it finds in cwd.
  const tree = await parseDependencyTree(globs, { cwd, context: cwd, transform: false, skipDynamicImports: false });
  // An import it could not resolve would hide any cycle through it.
  const unresolved = Object.values(tree)
    .flatMap((deps) => deps ?? [])
    .filter((d) => d.request.startsWith('.') && d.id === null)
    .map((d) => `${d.issuer} -> ${d.request}`);
  expect(unresolved).toEqual([]);
  return parseCircular(tree, false);
}

describe('import cycles', () => {
  it('src/ and examples/ have none, type-only imports included', async () => {
    expect(await importCycles(root, ['src/**/*.ts', 'examples/**/*.ts'])).toEqual([]);
  }, 60_000);

  const scratch = mkdtempSync(join(tmpdir(), 'import-cycles-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('finds a cycle that runs only through a type import', async () => {
    writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
    writeFileSync(join(scratch, 'a.ts'), "import type { B } from './b.js';\nexport interface A { b: B }\n");
    writeFileSync(join(scratch, 'b.ts'), "import { c } from './c.js';\nexport interface B { n: number }\nexport const d = c;\n");
    writeFileSync(join(scratch, 'c.ts'), "import type { A } from './a.js';\nexport const c = (a: A) => a;\n");
    const cycles = await importCycles(scratch, ['*.ts']);
    expect(cycles.map((cycle) => [...cycle].sort())).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
