/**
 * The import rules of the Slack front end (docs/ARCHITECTURE.md, "Dependencies"):
 * - a feature folder imports no other feature folder; card/ (the one card lifecycle: post,
 *   render, redraw, the card store, the button check) is the exception every feature may import,
 *   and it imports no feature itself;
 * - kit/ and transport/, and the top-level files every feature shares (context.ts, ack.ts), import no feature;
 * - a pure builder (`*-card.ts`, `*-modal.ts`, `*-modals.ts`, `*-blocks.ts`; not `show-*.ts`, the
 *   name both feature and card flows take for what draws) reaches no store and no flow: it
 *   imports no runtime value of db/ or agent/, and none of its runtime imports leads, however
 *   indirectly, to a file that waits on anything (`await`: the Web API, the database, the agent).
 *   Type-only imports are free. A file named like a builder that waits itself is a flow misnamed.
 * - a request reaches slack/ as the camelCase `Request` (agent/request.ts), never as its stored
 *   row: nothing in slack/ takes `PendingAction` from db/rows.ts (which also holds `SuspendedRun`,
 *   the public API's camelCase listing of a paused run) but the two stores whose statements read
 *   requests joined to slack/'s own tables, card/cards.ts (their cards) and
 *   routing/send-due-notices.ts (their notices), which hand each on as a Request (requestOf).
 * Type-only imports count for the folder rules: a type from another feature still ties the two.
 *
 * What still breaks a rule is listed in KNOWN_VIOLATIONS with why; a listed violation that is
 * gone fails the test too, so the list only shrinks.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';
import { filesUnder, parseSource, resolveImport, stringValue, walk, type SyntaxNode } from '../helpers/source-tree.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const SLACK = join(SRC, 'slack');

const FEATURES = ['thread', 'card', 'approval', 'batch', 'edit', 'remembered', 'routing', 'answer', 'inbox'] as const;
/** The card lifecycle every feature may use. */
const SHARED_FEATURE = 'card';
const SHARED_FOLDERS = ['kit', 'transport'];
const SHARED_FILES = ['context.ts', 'ack.ts'];
/** A builder's name; `show-*.ts` is a flow that draws (`show-card.ts` posts the card `approval-card.ts` builds). */
const BUILDER = /\/(?!show-)[^/]*-(card|modals?|blocks)\.ts$/;

/**
 * Imports that still break a rule, as `from -> to` (paths under src/slack/, or src/ for what is
 * outside it), each with why it is still there. Remove an entry once the import is gone.
 */
const KNOWN_VIOLATIONS: Record<string, string> = {};

interface Import {
  target: string;
  typeOnly: boolean;
}

/** Relative imports and re-exports of a file, resolved to .ts paths; dynamic `import()` counts as a runtime import. */
function importsOf(file: string): Import[] {
  const found: Import[] = [];
  const add = (specifier: string | undefined, typeOnly: boolean) => {
    if (!specifier?.startsWith('.')) return;
    found.push({ target: resolveImport(file, specifier) ?? resolve(dirname(file), specifier, 'index.ts'), typeOnly });
  };
  walk(parseSource(file), (node) => {
    if (node.type === 'ImportDeclaration') {
      const specifiers = node.specifiers as SyntaxNode[];
      const typeOnly =
        node.importKind === 'type' || (specifiers.length > 0 && specifiers.every((s) => s.type === 'ImportSpecifier' && s.importKind === 'type'));
      add(stringValue(node.source), typeOnly);
    } else if (node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') {
      add(stringValue(node.source), node.exportKind === 'type');
    } else if (node.type === 'ImportExpression') {
      add(stringValue(node.source), false);
    } else if (node.type === 'TSImportType') {
      add(stringValue(node.source ?? node.argument?.literal), true);
    }
  });
  return found;
}

const name = (file: string) => (file.startsWith(SLACK + '/') ? relative(SLACK, file) : relative(ROOT, file));
/** The folder of src/slack/ a file is in, or its own name at the top level. */
const area = (file: string) => relative(SLACK, file).split('/')[0]!;
const isFeature = (a: string) => (FEATURES as readonly string[]).includes(a);
const inSlack = (file: string) => file.startsWith(SLACK + '/');

const imports = new Map<string, Import[]>();
const importsCached = (file: string) => {
  let found = imports.get(file);
  if (!found) imports.set(file, (found = existsSync(file) ? importsOf(file) : []));
  return found;
};

/** Why an import breaks a folder rule, if it does. */
function folderRuleBroken(from: string, to: string): string | undefined {
  if (!inSlack(to)) return undefined;
  const a = area(from);
  const b = area(to);
  if (a === b || !isFeature(b)) return undefined;
  if (isFeature(a)) return b === SHARED_FEATURE && a !== SHARED_FEATURE ? undefined : 'a feature imports another feature';
  if (SHARED_FOLDERS.includes(a)) return `${a}/ imports a feature`;
  if (SHARED_FILES.includes(a)) return `${a} imports a feature`;
  return undefined;
}

const ROWS = join(SRC, 'db', 'rows.ts');
/** The files of slack/ that read stored requests themselves (joined to their cards, their notices), and convert them. */
const READS_ROWS = [join(SLACK, 'card', 'cards.ts'), join(SLACK, 'routing', 'send-due-notices.ts')];

/** Why an import breaks the request rule, if it does. */
function rowRuleBroken(from: string, to: string): string | undefined {
  if (to !== ROWS || READS_ROWS.includes(from) || !/\bPendingAction\w*\b/.test(readFileSync(from, 'utf8'))) return undefined;
  return 'slack/ takes a stored row, not the camelCase Request (agent/request.ts)';
}

/** Whether a file waits on anything (the Web API, the database, the agent): a store or a flow, not a builder. */
const awaits = (file: string) => /\bawait\b/.test(readFileSync(file, 'utf8'));
const storeOrRuntime = (file: string) => file.startsWith(join(SRC, 'db') + '/') || file.startsWith(join(SRC, 'agent') + '/');

/** The first file that waits on something a runtime import leads to, through runtime imports only. */
function firstIo(start: string): string | undefined {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    if (awaits(file)) return file;
    for (const i of importsCached(file)) if (!i.typeOnly && i.target.startsWith(SRC + '/')) queue.push(i.target);
  }
  return undefined;
}

/** Why a builder's import breaks the builder rule, if it does. */
function builderRuleBroken(to: Import): string | undefined {
  if (to.typeOnly) return undefined;
  if (storeOrRuntime(to.target)) return 'a pure builder imports a runtime value of db/ or agent/';
  const io = firstIo(to.target);
  return io ? `a pure builder reaches ${name(io)}, which waits on I/O` : undefined;
}

function violations(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of filesUnder(SLACK, (name) => name.endsWith('.ts'))) {
    // A file named like a builder that waits on I/O itself is one violation (its name), not one an import.
    const builder = BUILDER.test(file);
    if (builder && awaits(file)) found.set(name(file), 'named like a pure builder, but waits on I/O (a flow)');
    for (const i of importsCached(file)) {
      const why = folderRuleBroken(file, i.target) ?? rowRuleBroken(file, i.target);
      if (why) found.set(`${name(file)} -> ${name(i.target)}`, why);
      const builderWhy = builder && !awaits(file) ? builderRuleBroken(i) : undefined;
      if (builderWhy) found.set(`${name(file)} -> ${name(i.target)}`, why ? `${why}; ${builderWhy}` : builderWhy);
    }
  }
  return found;
}

describe('import rules of src/slack/', () => {
  const found = violations();

  it('no feature imports another (card/ aside), shared code imports no feature, builders reach no store or flow, no row reaches slack/', () => {
    const unlisted = [...found].filter(([edge]) => !(edge in KNOWN_VIOLATIONS)).map(([edge, why]) => `${edge}: ${why}`);
    expect(unlisted).toEqual([]);
  });

  it('lists only violations that still exist (the list only shrinks)', () => {
    expect(Object.keys(KNOWN_VIOLATIONS).filter((edge) => !found.has(edge))).toEqual([]);
  });

  it('sees the imports it checks (the parser still matches the code)', () => {
    const app = importsCached(join(SLACK, 'app.ts'));
    expect(app.some((i) => name(i.target) === 'listeners.ts' && !i.typeOnly)).toBe(true);
    expect(app.some((i) => name(i.target) === 'context.ts' && i.typeOnly)).toBe(true);
    expect(folderRuleBroken(join(SLACK, 'batch/x.ts'), join(SLACK, 'approval/y.ts'))).toBeDefined();
    expect(folderRuleBroken(join(SLACK, 'batch/x.ts'), join(SLACK, 'card/y.ts'))).toBeUndefined();
    expect(folderRuleBroken(join(SLACK, 'card/x.ts'), join(SLACK, 'batch/y.ts'))).toBeDefined();
    expect(folderRuleBroken(join(SLACK, 'kit/x.ts'), join(SLACK, 'card/y.ts'))).toBeDefined();
    expect(folderRuleBroken(join(SLACK, 'listeners.ts'), join(SLACK, 'batch/y.ts'))).toBeUndefined();
    expect(rowRuleBroken(join(SLACK, 'thread/handle-message.ts'), ROWS)).toBeUndefined();
    const takesRow = join(tempDir('import-rules-'), 'x.ts');
    writeFileSync(takesRow, "import type { PendingAction } from '../../db/rows.js';\n");
    expect(rowRuleBroken(takesRow, ROWS)).toBeDefined();
    for (const file of READS_ROWS) {
      expect(rowRuleBroken(file, ROWS)).toBeUndefined();
      expect(importsCached(file).some((i) => i.target === ROWS)).toBe(true);
    }
  });
});
