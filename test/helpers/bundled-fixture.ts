import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');
const built = new Map<string, string>();
/**
 * PGlite finds its WebAssembly and data files beside its own module (`new URL(…, import.meta.url)`),
 * which a bundle in the temp folder has not: it stays out of the bundle, imported from where it is installed.
 */
const PGLITE = import.meta.resolve('@electric-sql/pglite');

/**
 * A TypeScript fixture that tests start as a child process (`node <the path returned>`), bundled
 * with its dependencies into one plain JavaScript file. Started as `node --import tsx <fixture>`,
 * each start cost about 1 s of CPU (tsx, then the MCP SDK and zod resolved and loaded file by
 * file), and the MCP tests start some sixty; the bundle starts in about 0.25 s. Bundled once per
 * test file from the sources as they are now (about 0.4 s), into the temp folder under the hash
 * of its contents, written under a temporary name and renamed, so files doing it at the same
 * time never start half of one.
 */
export function bundledFixture(entry: string): string {
  const known = built.get(entry);
  if (known !== undefined) return known;
  const { outputFiles } = buildSync({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    write: false,
    logLevel: 'silent',
    alias: { '@electric-sql/pglite': PGLITE },
    external: [PGLITE],
    // CommonJS packages in the bundle (pg, pino) require Node's own modules, which an ES module has no `require` for.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
  });
  const code = outputFiles[0]!.contents;
  const dir = join(tmpdir(), 'slack-approval-bot-fixtures');
  const path = join(dir, `${basename(entry, '.ts')}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, code);
    renameSync(partial, path);
  }
  built.set(entry, path);
  return path;
}
