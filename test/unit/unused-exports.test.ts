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
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, isSourceFile, parseSource, resolveImport, stringValue, walk, type SyntaxNode } from '../helpers/source-tree.js';

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

/** Declarations of runtime values (a function's overloads included); types and interfaces are not. */
const VALUE_DECLARATIONS = new Set(['FunctionDeclaration', 'TSDeclareFunction', 'ClassDeclaration', 'TSEnumDeclaration']);
/** An import's or export's name: an identifier, or a string (`export { a as "b" }`). */
const nameOf = (node: SyntaxNode) => (node.type === 'Identifier' ? (node.name as string) : String(node.value));
const isPromiseAll = (node: SyntaxNode | null | undefined): node is SyntaxNode =>
  node?.type === 'CallExpression' && node.callee.type === 'MemberExpression' && !node.callee.computed && node.callee.object.name === 'Promise' && node.callee.property.name === 'all';

function scan(): Scan {
  const modules = new Map<string, Module>();
  const used = new Map<string, Set<string>>();
  const use = (file: string | undefined, name: string) => {
    if (!file) return;
    if (!used.has(file)) used.set(file, new Set());
    used.get(file)!.add(name);
  };
  for (const file of SCANNED.flatMap((d) => filesUnder(join(ROOT, d), isSourceFile))) {
    const module: Module = { values: new Set(), reexportsAll: [] };
    modules.set(file, module);
    /** The file of this repository a module specifier (`'./x.js'`) names; undefined for a package or none. */
    const localTarget = (source: SyntaxNode | null | undefined) => {
      const specifier = stringValue(source);
      return specifier?.startsWith('.') ? resolveImport(file, specifier) : undefined;
    };
    /** `import('./x.js')` as the file it loads; undefined for anything else. */
    const dynamicImport = (node: SyntaxNode | null | undefined) => (node?.type === 'ImportExpression' ? localTarget(node.source) : undefined);
    /** Dynamic imports whose names are known: `const { a } = await import(…)`, `const [{ a }, { b }] = await Promise.all([import(…), import(…)])`. */
    const named = new Set<SyntaxNode>();
    const destructuredImports = (binding: SyntaxNode, init: SyntaxNode) => {
      const value = init.type === 'AwaitExpression' ? init.argument : init;
      const properties = binding.properties as SyntaxNode[] | undefined;
      if (binding.type === 'ObjectPattern' && dynamicImport(value) && properties!.every((p) => p.type === 'Property')) {
        named.add(value);
        for (const p of properties!) use(dynamicImport(value), nameOf(p.key));
      } else if (binding.type === 'ArrayPattern' && isPromiseAll(value)) {
        const [list] = value.arguments as SyntaxNode[];
        if (list?.type !== 'ArrayExpression') return;
        (binding.elements as Array<SyntaxNode | null>).forEach((e, i) => {
          const element = list.elements[i] as SyntaxNode | null;
          if (e && element) destructuredImports(e.type === 'AssignmentPattern' ? e.left : e, element);
        });
      }
    };
    walk(parseSource(file), (node) => {
      if (node.type === 'ImportDeclaration') {
        const target = localTarget(node.source);
        for (const s of node.specifiers as SyntaxNode[]) {
          if (s.type === 'ImportNamespaceSpecifier') use(target, '*');
          else if (s.type === 'ImportDefaultSpecifier') use(target, 'default');
          else use(target, nameOf(s.imported));
        }
      } else if (node.type === 'ExportAllDeclaration') {
        const target = localTarget(node.source);
        // `export * as ns from` passes nothing on by name.
        if (target && !node.exported) module.reexportsAll.push(target);
      } else if (node.type === 'ExportNamedDeclaration' && node.declaration) {
        const declaration = node.declaration as SyntaxNode;
        if (VALUE_DECLARATIONS.has(declaration.type) && declaration.id) module.values.add(declaration.id.name);
        else if (declaration.type === 'VariableDeclaration') {
          for (const d of declaration.declarations as SyntaxNode[]) if (d.id.type === 'Identifier') module.values.add(d.id.name);
        }
      } else if (node.type === 'ExportNamedDeclaration') {
        const target = localTarget(node.source);
        for (const e of node.specifiers as SyntaxNode[]) {
          // `export { a } from './x'` uses x's a; a local `export { a }` exports a value of this file.
          if (target) use(target, nameOf(e.local));
          else if (node.exportKind !== 'type' && e.exportKind !== 'type') module.values.add(nameOf(e.exported));
        }
      } else if (node.type === 'VariableDeclarator' && node.init) {
        destructuredImports(node.id, node.init);
      } else if (dynamicImport(node) && !named.has(node)) {
        use(dynamicImport(node), '*');
      }
    });
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
