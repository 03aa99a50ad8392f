/**
 * Every runtime value src/ exports (a function, class, constant or enum) is imported by another
 * file of the repository (src/, test/, bench/, scripts/, examples/), or is the package's public
 * API (src/index.ts and what it re-exports): an export nothing imports is a file's own helper,
 * and reads as if something else relied on it.
 *
 * Types are left out: TypeScript's declaration output needs a type exported wherever another
 * module's exported function returns it without naming it (TS4058), whether or not any file
 * imports it by name.
 */
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { filesUnder, isSourceFile, resolveImport } from '../helpers/source-tree.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'test', 'bench', 'scripts', 'examples'];
/** Files whose exports are all used, by the package's users rather than by an import here: the package entry. */
const ENTRIES = [join(ROOT, 'src/index.ts')];

interface Module {
  /** Runtime values it declares and exports, by exported name. */
  values: Set<string>;
  /** The modules it passes on whole (`export * from`); a name re-exported by `export { a } from` counts as used where it comes from. */
  reexportsAll: string[];
}

interface Scan {
  modules: Map<string, Module>;
  /** Per module, the names other files import from it; '*' for a namespace import, or a dynamic one whose names are not destructured. */
  used: Map<string, Set<string>>;
}

const hasExport = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

function scan(): Scan {
  const modules = new Map<string, Module>();
  const used = new Map<string, Set<string>>();
  const use = (file: string | undefined, name: string) => {
    if (!file) return;
    if (!used.has(file)) used.set(file, new Set());
    used.get(file)!.add(name);
  };
  for (const file of SCANNED.flatMap((d) => filesUnder(join(ROOT, d), isSourceFile))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const module: Module = { values: new Set(), reexportsAll: [] };
    modules.set(file, module);
    /** `import('./x.js')` as the file it loads; undefined for anything else. */
    const dynamicImport = (node: ts.Node) => {
      if (!ts.isCallExpression(node) || node.expression.kind !== ts.SyntaxKind.ImportKeyword) return undefined;
      const [arg] = node.arguments;
      return arg && ts.isStringLiteral(arg) && arg.text.startsWith('.') ? resolveImport(file, arg.text) : undefined;
    };
    /** Dynamic imports whose names are known: `const { a } = await import(…)`, `const [{ a }, { b }] = await Promise.all([import(…), import(…)])`. */
    const named = new Set<ts.Node>();
    const destructuredImports = (binding: ts.BindingName, init: ts.Expression) => {
      const value = ts.isAwaitExpression(init) ? init.expression : init;
      if (ts.isObjectBindingPattern(binding) && dynamicImport(value) && binding.elements.every((e) => !e.dotDotDotToken)) {
        named.add(value);
        for (const e of binding.elements) use(dynamicImport(value), (e.propertyName ?? e.name).getText(source));
      } else if (ts.isArrayBindingPattern(binding) && ts.isCallExpression(value) && value.expression.getText(source) === 'Promise.all') {
        const [list] = value.arguments;
        if (!list || !ts.isArrayLiteralExpression(list)) return;
        binding.elements.forEach((e, i) => {
          if (ts.isBindingElement(e) && list.elements[i]) destructuredImports(e.name, list.elements[i]!);
        });
      }
    };
    const visit = (node: ts.Node) => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text.startsWith('.')) {
        const target = resolveImport(file, node.moduleSpecifier.text);
        const bindings = node.importClause?.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) use(target, '*');
        else if (bindings) for (const e of bindings.elements) use(target, (e.propertyName ?? e.name).text);
        if (node.importClause?.name) use(target, 'default');
      } else if (ts.isExportDeclaration(node)) {
        const specifier = node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : undefined;
        const target = specifier?.startsWith('.') ? resolveImport(file, specifier) : undefined;
        if (target && !node.exportClause) module.reexportsAll.push(target);
        else if (node.exportClause && ts.isNamedExports(node.exportClause)) {
          for (const e of node.exportClause.elements) {
            // `export { a } from './x'` uses x's a; a local `export { a }` exports a value of this file.
            if (target) use(target, (e.propertyName ?? e.name).text);
            else if (!node.isTypeOnly && !e.isTypeOnly) module.values.add(e.name.text);
          }
        }
      } else if (ts.isVariableDeclaration(node) && node.initializer) {
        destructuredImports(node.name, node.initializer);
      } else if (dynamicImport(node) && !named.has(node)) {
        use(dynamicImport(node), '*');
      } else if (hasExport(node)) {
        if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isEnumDeclaration(node)) && node.name) module.values.add(node.name.text);
        else if (ts.isVariableStatement(node)) {
          for (const d of node.declarationList.declarations) if (ts.isIdentifier(d.name)) module.values.add(d.name.text);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  // A name used from a module that only passes it on (`export *`) is used from where it comes from.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [file, module] of modules) {
      const names = used.get(file);
      if (!names) continue;
      for (const target of module.reexportsAll) {
        for (const name of names) {
          if (name !== '*' && module.values.has(name)) continue;
          if (!used.get(target)?.has(name)) {
            use(target, name);
            changed = true;
          }
        }
      }
    }
  }
  for (const entry of ENTRIES) use(entry, '*');
  return { modules, used };
}

function unusedExports(s: Scan): string[] {
  const unused: string[] = [];
  for (const [file, module] of s.modules) {
    if (!file.startsWith(join(ROOT, 'src') + '/')) continue;
    const names = s.used.get(file) ?? new Set();
    if (names.has('*')) continue;
    for (const value of module.values) if (!names.has(value)) unused.push(`${relative(ROOT, file)}: ${value}`);
  }
  return unused.sort();
}

describe('exports of src/', () => {
  const result = scan();

  it('every exported value is imported by another file, or is the public API', () => {
    expect(unusedExports(result)).toEqual([]);
  });

  it('sees the imports it checks (the parser still matches the code)', () => {
    // The Agent class is imported by many files; the runtime's own helpers by their callers.
    expect(result.used.get(join(ROOT, 'src/agent/agent.ts'))?.has('Agent')).toBe(true);
    expect(result.modules.get(join(ROOT, 'src/agent/agent.ts'))?.values.has('Agent')).toBe(true);
    // A name imported through the simulator's `export *` counts for the file that declares it.
    expect(result.used.get(join(ROOT, 'src/simulator/event-payloads.ts'))?.has('appMentionEnvelope')).toBe(true);
    expect(result.modules.size).toBeGreaterThan(300);
  });
});
