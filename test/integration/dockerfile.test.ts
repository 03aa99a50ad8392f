import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase, type BotDatabase } from '../helpers/bot-database.js';
import { watchProcess } from '../helpers/watch-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Docker may not be able to pull images here, so the Dockerfile is checked without it: every path
 * it copies exists and is not excluded from the build context, the runtime stage holds exactly
 * what the package ships, and its start command, run from that layout, starts the bot (on a
 * PostgreSQL schema of its own when DATABASE_URL is set, else on a DATA_DIR as an earlier start
 * left it: bot-database.ts; which database is no part of the image's layout).
 */

const ROOT = resolve(import.meta.dirname, '../..');
const dir = tempDir('approval-bot-image-');
let database: BotDatabase | undefined;
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});
beforeAll(ensureBuiltPackage, 300_000);

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  instructions: Instruction[];
}

function stages(): Stage[] {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const result: Stage[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [, op = '', args = ''] = /^(\S+)\s+(.*)$/.exec(trimmed) ?? [];
    if (op.toUpperCase() === 'FROM') result.push({ name: /\bAS\s+(\S+)/i.exec(args)?.[1] ?? String(result.length), instructions: [] });
    result.at(-1)?.instructions.push({ op: op.toUpperCase(), args });
  }
  return result;
}

/** COPY's sources (all but the last word), its --from stage if any. */
function copies(stage: Stage): Array<{ from?: string; sources: string[]; target: string }> {
  return stage.instructions
    .filter((i) => i.op === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((w) => !w.startsWith('--'));
      return { ...(from ? { from } : {}), sources: paths.slice(0, -1), target: paths.at(-1)! };
    });
}

const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));

describe('Dockerfile', () => {
  const all = stages();
  const build = all.find((s) => s.name === 'build')!;
  const runtime = all.at(-1)!;

  it('is multi-stage: a build stage with the dev dependencies, a runtime stage without them, run as a non-root user', () => {
    expect(build).toBeDefined();
    expect(runtime.name).toBe('runtime');
    const runs = (s: Stage) => s.instructions.filter((i) => i.op === 'RUN').map((i) => i.args).join('\n');
    expect(runs(build)).toMatch(/npm ci(?!.*--omit=dev)/);
    expect(runs(build)).toContain('npm run build');
    expect(runs(runtime)).toMatch(/npm ci .*--omit=dev/);
    const user = runtime.instructions.filter((i) => i.op === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it('copies only paths that exist and reach the build context', () => {
    for (const stage of all) {
      for (const copy of copies(stage)) {
        if (copy.from) continue;
        for (const source of copy.sources) {
          expect(existsSync(join(ROOT, source)), `${stage.name}: COPY ${source}`).toBe(true);
          const top = source.replace(/^\.\//, '').split('/')[0]!;
          expect(ignored.some((pattern) => pattern === top || pattern === source), `${source} is excluded by .dockerignore`).toBe(false);
        }
      }
    }
    // Secrets and local state stay out of every image.
    expect(ignored).toEqual(expect.arrayContaining(['.env', '.data', '.git', 'node_modules']));
  });

  it('builds what the runtime stage takes from it, and the runtime holds what the package ships', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; files: string[] };
    expect(scripts.scripts.build).toContain('tsconfig.build.json');
    const fromBuild = copies(runtime).filter((c) => c.from === 'build');
    for (const copy of fromBuild) for (const source of copy.sources) expect(existsSync(join(ROOT, source.replace(/^\/app\//, '')))).toBe(true);
    const shipped = copies(runtime)
      .flatMap((c) => c.sources.map((s) => (c.from ? s.replace(/^\/app\//, '') : s)))
      .filter((s) => !s.startsWith('package'));
    expect(shipped.sort()).toEqual([...scripts.files].sort());
    // The build stage has what the build reads: the config it extends and the sources it includes.
    const built = copies(build).flatMap((c) => c.sources);
    expect(built).toEqual(expect.arrayContaining(['tsconfig.json', 'tsconfig.build.json', 'src']));
  });

  it('its start command, from the runtime layout, starts the bot, answers its health check and stops cleanly on SIGTERM', async () => {
    const cmd = runtime.instructions.filter((i) => i.op === 'CMD').at(-1)!.args;
    const argv = JSON.parse(cmd) as string[];
    expect(argv).toEqual(['node', 'dist/src/main.js']);
    const health = runtime.instructions.find((i) => i.op === 'HEALTHCHECK')!.args;
    expect(health).toContain('/healthz');

    // The image's /app, laid out by the Dockerfile's COPY lines (node_modules borrowed from here).
    const app = join(dir, 'app');
    mkdirSync(app, { recursive: true });
    for (const copy of copies(runtime)) {
      for (const source of copy.sources) {
        const relative = copy.from ? source.replace(/^\/app\//, '') : source;
        const target = copy.target.endsWith('/') ? join(app, copy.target, relative) : join(app, copy.target);
        cpSync(join(ROOT, relative), target, { recursive: true });
      }
    }
    symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');

    database = await botDatabase(join(dir, 'data'));
    const child = spawn(process.execPath, argv.slice(1), {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', HOME: dir, PORT: '0', ...database.env, LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const watched = watchProcess(child, { stderr: true });
    const url = await watched.waitFor((output) => {
      const ready = output.split('\n').find((line) => line.includes('Sandbox ready'));
      return ready === undefined ? undefined : (JSON.parse(ready).url as string);
    });
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${url}/metrics`)).text()).toContain('approval_bot_open_runs');
      // The sandbox's page comes from src/sandbox/public, found from dist/.
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await watched.exited).toBe(0);
  }, 120_000);
});
