import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { buildSync, version as esbuildVersion } from 'esbuild';

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
 * file), and the MCP tests start some sixty; the bundle starts in about 0.25 s. Bundled from the
 * sources as they are now (0.2–0.8 s of CPU) when any file it is made from changed since the last
 * bundle (keptBundle), into the temp folder under the hash of its contents, written under a
 * temporary name and renamed, so files doing it at the same time never start half of one.
 */
export function bundledFixture(entry: string): string {
  const known = built.get(entry);
  if (known !== undefined) return known;
  const dir = join(tmpdir(), 'slack-approval-bot-fixtures');
  const record = join(dir, `${basename(entry, '.ts')}-${createHash('sha256').update(JSON.stringify([ROOT, entry, PGLITE, esbuildVersion, process.versions.node])).digest('hex').slice(0, 16)}.json`);
  const kept = keptBundle(record);
  if (kept !== undefined) {
    built.set(entry, kept);
    return kept;
  }
  const { outputFiles, metafile } = buildSync({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    write: false,
    logLevel: 'silent',
    absWorkingDir: ROOT,
    metafile: true,
    alias: { '@electric-sql/pglite': PGLITE },
    external: [PGLITE],
    // CommonJS packages in the bundle (pg, pino) require Node's own modules, which an ES module has no `require` for.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
  });
  const code = outputFiles[0]!.contents;
  const path = join(dir, `${basename(entry, '.ts')}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(path)) writeWhole(path, code);
  const inputs = Object.keys(metafile.inputs).map((input) => join(ROOT, input));
  // Only what can be checked again is kept (every input a file, as esbuild's are here).
  if (inputs.every((input) => existsSync(input))) writeWhole(record, JSON.stringify({ path, inputs: inputs.map((input) => [input, ...stamp(input)]) } satisfies KeptBundle));
  built.set(entry, path);
  return path;
}

/** The bundle made earlier (by this run's other workers or an earlier run), and every file it was made from as it was then. */
interface KeptBundle {
  path: string;
  inputs: Array<[string, number, number]>;
}

/**
 * The bundle `record` names if none of the files it was made from changed since (modification
 * time and size, as make does): bundling again cost each worker and each run 0.2–0.8 s of CPU a
 * fixture, the most of it esbuild's.
 */
function keptBundle(record: string): string | undefined {
  if (!existsSync(record)) return undefined;
  try {
    const kept = JSON.parse(readFileSync(record, 'utf8')) as KeptBundle;
    if (!existsSync(kept.path)) return undefined;
    for (const [input, mtime, size] of kept.inputs) {
      const [now, nowSize] = stamp(input);
      if (now !== mtime || nowSize !== size) return undefined;
    }
    return kept.path;
  } catch {
    return undefined; // gone meanwhile, or an input removed: bundled again
  }
}

const stamp = (file: string): [number, number] => {
  const stats = statSync(file);
  return [stats.mtimeMs, stats.size];
};

/** Written under a temporary name and renamed, so that nobody reads half of it. */
function writeWhole(path: string, content: string | Uint8Array): void {
  const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(partial, content);
  renameSync(partial, path);
}
