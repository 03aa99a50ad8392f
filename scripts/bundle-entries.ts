/**
 * The package's ES entries, bundled over what tsc emitted there: dist/src/main.js (the
 * `slack-approval-bot` command, `npm start` and `npm run start:prod` from a build, the
 * Dockerfile's command), dist/src/index.js (`import 'slack-approval-bot'`) and
 * dist/src/cli/policy.js (`slack-approval-policy`). Unbundled, a start loads about 1,500 files
 * (this package's 255, kysely's 265, zod's 114, undici's 111, …) and spends most of its CPU
 * finding and compiling them; bundled by esbuild (which tsx already brings), the same start took
 * 0.85 s of CPU instead of 1.6 s on PostgreSQL, and 1.1 s instead of 1.65 s with an agents module
 * (measured on two cores, Node 20).
 *
 * The three entries share their chunks (dist/src/chunks/), so an agents module that imports the
 * package gets the very modules the bot runs: one Agent class, one metrics registry. Left out of
 * the bundle, loaded from node_modules as before: packages that find files beside their own
 * modules at run time (PGlite its WebAssembly and data, pino the workers of its transports), tsx
 * (registered as a loader for TypeScript agents modules), and the MCP SDK (loaded only with MCP
 * servers). The rest of dist/src stays as tsc wrote it: the types, and the commands run from the
 * build (migrate, audit). `require('slack-approval-bot')` is scripts/build-commonjs.ts's.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const out = join(root, 'dist/src');
const ENTRIES = ['main', 'index', 'cli/policy'];

// Chunks are named by their content: those of an earlier build would stay behind.
rmSync(join(out, 'chunks'), { recursive: true, force: true });
await build({
  entryPoints: ENTRIES.map((entry) => join(root, `src/${entry}.ts`)),
  outdir: out,
  outbase: join(root, 'src'),
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  external: ['@electric-sql/pglite', 'pino', 'pino-pretty', 'thread-stream', 'tsx', '@modelcontextprotocol/sdk'],
  // The CommonJS packages bundled in require Node's own modules: esbuild's ES output reaches them
  // through a `require` in scope.
  banner: { js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);" },
});
// tsc's maps of the three entries describe the files they replaced.
for (const entry of ENTRIES) rmSync(join(out, `${entry}.js.map`), { force: true });
