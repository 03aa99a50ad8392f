/** The repository's source files as the structure tests read them: walking a folder, and where a relative import leads. */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Every file below `dir` (node_modules left out) whose name `accept` takes, as absolute paths; none when `dir` is missing. */
export function filesUnder(dir: string, accept: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' ? [] : e.isDirectory() ? filesUnder(join(dir, e.name), accept) : accept(e.name) ? [join(dir, e.name)] : [],
  );
}

/** A source file (TypeScript or JavaScript), not a declaration file. */
export const isSourceFile = (name: string) => /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts');

/**
 * The file a relative import in `from` loads, as TypeScript resolves it for this repository
 * (`./x.js` is `x.ts` when that exists, a folder its `index.ts`); undefined when none exists.
 */
export function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => existsSync(c) && isSourceFile(c));
}
