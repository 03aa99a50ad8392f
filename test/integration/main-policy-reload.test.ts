/**
 * The policy reload as `npm start` wires it (src/main.ts → src/watch-policy.ts): the real entry
 * point with POLICY_FILE, the file edited on disk and SIGHUP sent to the process. The entry point
 * as built (what `npm run start:prod` and the Docker image run), on a schema of its own on
 * PostgreSQL when DATABASE_URL is set, else on a DATA_DIR as an earlier start left it
 * (migrated-data-dir.ts): neither TypeScript nor the database is this test's subject.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase, type BotDatabase } from '../helpers/bot-database.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('approval-bot-reload-');
const MAIN = 'dist/src/main.js';
beforeAll(ensureBuiltPackage, 300_000);
let child: ChildProcess | undefined;
let database: BotDatabase | undefined;
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** The bot's database (see botDatabase), dropped after the file. */
async function databaseEnv(): Promise<Record<string, string>> {
  database = await botDatabase(join(dir, 'data'));
  return database.env;
}

type LogLine = { level: number; msg: string; [key: string]: unknown };

// The two tests start processes of their own: they run concurrently.
describe.concurrent('POLICY_FILE reloads in the running bot', () => {
  it('warns at start about a quorum nobody can meet, swaps an edited file in, and keeps the policy on a bad one or a SIGHUP', async () => {
    const file = join(dir, 'policy.yaml');
    // Two listed approvers and a quorum of three: loads (it fails closed) but is named at start.
    writeFileSync(file, 'version: first\ntools:\n  delete_record:\n    requireApproval: true\n    approvers: [U0ALICE, U0BOB]\n    quorum: 3\n');
    const shadowFile = join(dir, 'shadow.yaml');
    writeFileSync(shadowFile, 'version: trial\ntools:\n  delete_record:\n    requireApproval: true\n');
    child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...(await databaseEnv()), PORT: '0', LOG_LEVEL: 'info', POLICY_FILE: file, SHADOW_POLICY_FILE: shadowFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: LogLine[] = [];
    let raw = '';
    const waiters = new Set<() => void>();
    child.stdout!.on('data', (chunk: Buffer) => {
      raw += chunk.toString();
      const parts = raw.split('\n');
      raw = parts.pop()!;
      for (const line of parts) if (line.startsWith('{')) lines.push(JSON.parse(line) as LogLine);
      for (const wake of waiters) wake();
    });
    const exit = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    const until = (find: (l: LogLine) => boolean, what: string): Promise<LogLine> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(lines.map((l) => l.msg))}`)), 60_000);
        const check = () => {
          const found = lines.find(find);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });

    await until((l) => l.msg === 'model selected', 'start-up');
    const first = (await until((l) => l.msg === 'policy loaded', 'the policy')).policyVersion as string;
    expect(first).toMatch(/^first@/);
    const trial = await until((l) => l.msg.startsWith('shadow policy loaded'), 'the shadow policy');
    expect(trial).toMatchObject({ shadowPolicyVersion: expect.stringMatching(/^trial@/), source: shadowFile });
    expect(lines.find((l) => l.level === 40)).toMatchObject({
      msg: 'tools.delete_record: quorum is 3 but only 2 approvers are listed, so requests under it can never be approved',
      field: 'tools.delete_record',
      policyFile: file,
    });

    writeFileSync(file, 'version: second\ntools:\n  delete_record:\n    requireApproval: true\n    approvers: [U0ALICE, U0BOB]\n    quorum: 2\n');
    const swapped = await until((l) => l.msg.startsWith('policy reloaded'), 'the reload');
    expect(swapped).toMatchObject({ level: 30, from: first, to: expect.stringMatching(/^second@/), policyFile: file });

    // The shadow file is followed the same way, apart from the enforced one.
    writeFileSync(shadowFile, 'version: trial-2\ntools:\n  delete_record:\n    requireApproval: true\n    quorum: 2\n');
    const shadowSwap = await until((l) => l.msg.startsWith('shadow policy reloaded'), 'the shadow reload');
    expect(shadowSwap).toMatchObject({ from: trial.shadowPolicyVersion, to: expect.stringMatching(/^trial-2@/), shadowPolicyFile: shadowFile });

    writeFileSync(file, 'version: third\ntools:\n  delete_record:\n    requireApproval: yes\n');
    const refused = await until((l) => l.level === 50, 'the error');
    expect(refused.msg).toMatch(new RegExp(`^Invalid policy in ${file}: tools\\.delete_record\\.requireApproval must be true or false`));
    expect(refused.keptVersion).toBe(swapped.to);

    // SIGHUP re-reads the file (still bad) instead of ending the process, as it would by default.
    const errorsBefore = lines.filter((l) => l.level === 50).length;
    child.kill('SIGHUP');
    await until(() => lines.filter((l) => l.level === 50).length > errorsBefore, 'the second error');
    expect(child.exitCode).toBeNull();
    expect(lines.filter((l) => l.msg.startsWith('policy reloaded'))).toHaveLength(1);

    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 120_000);

  it('a SHADOW_POLICY_FILE that cannot be used stops start-up, naming the file and the field', async () => {
    const shadowFile = join(dir, 'bad-shadow.yaml');
    writeFileSync(shadowFile, 'tools:\n  delete_record:\n    deny: ""\n');
    const bad = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: join(dir, 'data-bad'), PORT: '0', LOG_LEVEL: 'info', SHADOW_POLICY_FILE: shadowFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    bad.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => bad.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(out).toContain(`Invalid policy in ${shadowFile}: tools.delete_record.deny must be the reason the call is refused, not empty`);
  }, 60_000);
});
