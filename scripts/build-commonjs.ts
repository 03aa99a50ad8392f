/**
 * The package's CommonJS entry (dist/cjs/index.cjs), for `require('slack-approval-bot')` and for
 * TypeScript that tsx compiles to CommonJS (a `.ts` agents module in a project without
 * `"type": "module"`). Node before 20.19 and 22.12 cannot require an ES module, and tsx compiles
 * what such a require reaches to CommonJS itself, which breaks on dependencies that ship only ES
 * modules; so the library is bundled (esbuild, the bundler tsx already brings) from src/index.ts
 * into one CommonJS file. The bot's own dependencies that CommonJS can require stay outside the
 * bundle and are shared with the ES build; those that ship only ES modules (canonicalize, the
 * mdast/micromark family) are bundled in.
 */
import { readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const dependencies = new Set(Object.keys(manifest.dependencies));
const builtins = new Set(builtinModules);

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Whether `file` is CommonJS by Node's rules: `.cjs`, or `.js` in a package not of `"type": "module"`. */
function isCommonJs(file: string): boolean {
  if (file.endsWith('.cjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { type?: string }).type !== 'module';
    } catch {
      // No package.json here (or not one with a type): look further up.
    }
  }
  return true;
}

const requireableDependencies: Plugin = {
  name: 'requireable-dependencies-stay-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || builtins.has(args.path)) return { path: args.path, external: true };
      if (!dependencies.has(packageOf(args.path))) return undefined;
      try {
        const resolved = createRequire(join(args.resolveDir, 'index.js')).resolve(args.path);
        if (isCommonJs(resolved)) return { path: args.path, external: true };
      } catch {
        // Not reachable by require (an ES-only package's exports): bundled.
      }
      return undefined;
    });
  },
};

await build({
  entryPoints: [join(root, 'src/index.ts')],
  outfile: join(root, 'dist/cjs/index.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [requireableDependencies],
  // import.meta.url (where migrations/ and the sandbox's files are found from) is this file's URL.
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: 'const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
});
