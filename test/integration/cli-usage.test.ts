import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const exec = promisify(execFile);

/** Runs a CLI entry point as `npm run …` would; arguments are parsed before any database is opened. */
async function cli(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' };
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('command-line entry points', () => {
  it.each([
    ['src/cli/migrate.ts', ['--force'], /Unknown option '--force'/],
    ['src/cli/migrate.ts', ['now'], /Unexpected argument 'now'/],
    ['src/cli/audit.ts', ['--sinse', '2026-01-01'], /Unknown option '--sinse'/],
    ['src/cli/audit.ts', ['--run'], /'--run <value>' argument missing/],
    ['bench/run.ts', ['--only', 'nope'], /unknown suite "nope"/],
    ['bench/run.ts', ['--quick=1'], /'--quick' does not take an argument/],
  ])('%s %j exits 2 with the error and the usage on stderr', async (script, args, message) => {
    const { code, stdout, stderr } = await cli(script, args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/usage: npm run /);
    expect(stdout).toBe('');
  }, 90_000);

  it.each([
    ['src/cli/migrate.ts', /usage: npm run migrate/],
    ['src/cli/audit.ts', /usage: npm run audit -- \[--since <date>\] \[--run <runId>\]/],
    ['bench/run.ts', /usage: npm run bench/],
  ])('%s --help prints the usage and exits 0', async (script, usage) => {
    const { code, stdout } = await cli(script, ['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(usage);
  }, 90_000);
});
