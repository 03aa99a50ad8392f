/**
 * The policy watcher in the running bot (the entry point as built, what `npm run start:prod` and
 * the Docker image run, with POLICY_FILE), its log written to a file in the policy's own
 * directory, as a bot run next to its configuration writes it. The directory is laid out as a
 * Kubernetes config map mounts one (policy.yaml → ..data/policy.yaml, ..data → a timestamped
 * directory, swapped for a new one on each update), and then edited the way editors save (a new
 * file renamed over the old). Each distinct content is acted on once: an invalid policy is
 * reported once however much else happens in the directory (the bot's own log lines included),
 * and every swap and save after it is picked up. The database is a schema of its own on
 * PostgreSQL when DATABASE_URL is set, else a DATA_DIR as an earlier start left it (migrated:
 * migrated-data-dir.ts): neither TypeScript nor the database is this test's subject.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase, type BotDatabase } from '../helpers/bot-database.js';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
beforeAll(ensureBuiltPackage, 300_000);
const dir = tempDir('policy-watch-');
const data = join(dir, 'data');
const config = join(dir, 'config');
const policyFile = join(config, 'policy.yaml');
const logFile = join(config, 'bot.log');
let stop: (() => Promise<number | null>) | undefined;
let database: BotDatabase | undefined;
afterAll(async () => {
  await stop?.();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** The bot's database (see botDatabase), dropped after the file. */
async function databaseEnv(): Promise<Record<string, string>> {
  database = await botDatabase(data);
  return database.env;
}

type LogLine = { level: number; msg: string; [key: string]: unknown };

const policy = (version: string, requireApproval = 'true') => `version: ${version}\ntools:\n  delete_record:\n    requireApproval: ${requireApproval}\n    approvers: [U0ALICE]\n`;

let generation = 0;
/** A config map update as the kubelet makes it: a new timestamped directory, ..data swapped to it, the old one removed. */
function swapConfigMap(content: string, first = false): void {
  const next = `..2026_11_0${++generation}`;
  mkdirSync(join(config, next));
  writeFileSync(join(config, next, 'policy.yaml'), content);
  if (first) {
    symlinkSync(next, join(config, '..data'));
    symlinkSync('..data/policy.yaml', policyFile);
    return;
  }
  symlinkSync(next, join(config, '..data_tmp'));
  renameSync(join(config, '..data_tmp'), join(config, '..data'));
  rmSync(join(config, `..2026_11_0${generation - 1}`), { recursive: true, force: true });
}

/** An editor's save: the new text written beside the file, then renamed over it. */
function editorSave(content: string): void {
  writeFileSync(join(config, '.policy.yaml.swp'), content);
  renameSync(join(config, '.policy.yaml.swp'), policyFile);
}

function lines(): LogLine[] {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

async function until(find: (all: LogLine[]) => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!find(lines())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${lines().map((l) => l.msg).join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const errors = () => lines().filter((l) => l.level === 50);
const reloads = () => lines().filter((l) => l.msg.startsWith('policy reloaded'));
/** The bot's debug line for a change it looked at and found to be the content it last read. */
const unchanged = () => lines().filter((l) => l.msg.startsWith('policy file changed on disk, to the content last read')).length;

describe('POLICY_FILE watched in the running bot', () => {
  it('reports an invalid policy once despite other writes in its directory (its own log among them), and follows config-map swaps and editor saves', async () => {
    mkdirSync(config, { recursive: true });
    swapConfigMap(policy('first'), true);
    const log = openSync(logFile, 'a');
    const child = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: ROOT,
      detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...(await databaseEnv()), PORT: '0', LOG_FORMAT: 'json', LOG_LEVEL: 'debug', POLICY_FILE: policyFile },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    stop = async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      return exited;
    };
    await until((all) => all.some((l) => l.msg === 'model selected'), 'start-up', 120_000);
    expect(lines().find((l) => l.msg === 'policy loaded')?.policyVersion).toMatch(/^first@/);

    // An update that is not a valid policy: one error, which the bot writes beside the file.
    swapConfigMap(policy('broken', 'yes'));
    await until(() => errors().length > 0, 'the error');
    expect(errors()[0]!.msg).toMatch(new RegExp(`^Invalid policy in ${policyFile}: tools\\.delete_record\\.requireApproval must be true or false`));
    // Other files of the directory change; the same bad content is written again: once the bot has
    // looked at the file after that write (its debug line), still the one error.
    for (let i = 0; i < 5; i++) writeFileSync(join(config, 'notes.txt'), `note ${i}\n`);
    const lookedAt = unchanged();
    writeFileSync(join(config, `..2026_11_0${generation}`, 'policy.yaml'), policy('broken', 'yes'));
    await until(() => unchanged() > lookedAt, 'the file looked at again');
    expect(errors()).toHaveLength(1);

    swapConfigMap(policy('second'));
    await until(() => reloads().length === 1, 'the swap to a valid policy');
    expect(reloads()[0]).toMatchObject({ from: expect.stringMatching(/^first@/), to: expect.stringMatching(/^second@/) });
    swapConfigMap(policy('third'));
    await until(() => reloads().length === 2, 'the next swap');
    expect(reloads()[1]!.to).toMatch(/^third@/);

    editorSave(policy('fourth'));
    await until(() => reloads().length === 3, 'an editor’s save over the symlink');
    expect(reloads()[2]!.to).toMatch(/^fourth@/);
    editorSave(policy('fifth'));
    await until(() => reloads().length === 4, 'the next save');
    expect(reloads()[3]!.to).toMatch(/^fifth@/);

    // Another bad content is another error; still one for it.
    writeFileSync(policyFile, policy('broken-again', 'maybe'));
    await until(() => errors().length === 2, 'the second error');
    const lookedAgain = unchanged();
    writeFileSync(policyFile, policy('broken-again', 'maybe'));
    await until(() => unchanged() > lookedAgain, 'the file looked at again');
    expect(errors()).toHaveLength(2);
    expect(errors()[1]!.keptVersion).toBe(reloads()[3]!.to);

    expect(await stop()).toBe(0);
  }, 240_000);
});
