/** The repository's source files as the structure tests read them: walking a folder, and where a relative import leads. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseSync } from 'oxc-parser';

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

/** A node of the syntax tree `parseSource` gives (ESTree, with TypeScript's nodes as typescript-estree names them). */
export type SyntaxNode = { type: string; [key: string]: any };

/**
 * A file's syntax tree. oxc-parser reads TypeScript without a compiler: the project's `tsc` is
 * TypeScript 7, whose compiler has no JavaScript API to walk a tree with.
 */
export function parseSource(file: string): SyntaxNode {
  const { program, errors } = parseSync(file, readFileSync(file, 'utf8'), { sourceType: 'module' });
  if (errors.length > 0) throw new Error(`${file}: ${errors.map((e) => e.message).join('; ')}`);
  return program as unknown as SyntaxNode;
}

/** Calls `visit` on `node` and every node below it, parents first. */
export function walk(node: SyntaxNode, visit: (node: SyntaxNode) => void): void {
  visit(node);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === 'string') walk(child, visit);
    } else if (value && typeof value === 'object' && typeof value.type === 'string') walk(value, visit);
  }
}

/** The text of a string literal node; undefined for any other node. */
export const stringValue = (node: SyntaxNode | null | undefined): string | undefined =>
  node?.type === 'Literal' && typeof node.value === 'string' ? node.value : undefined;
