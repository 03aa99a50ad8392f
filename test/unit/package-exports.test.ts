import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ensureBuiltPackage } from '../helpers/built-package.js';

const run = promisify(execFile);

describe('package entry', () => {
  it('a user can import the runtime API from the built package by name', async () => {
    await ensureBuiltPackage();
    // Self-reference through package.json "exports", exactly as a dependent project would resolve it.
    const script = `import('slack-approval-bot').then((m) => console.log(JSON.stringify(Object.keys(m).sort())))`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 30_000 });
    const names: string[] = JSON.parse(stdout);
    for (const name of ['Agent', 'createTool', 'askUserTool', 'definePolicy', 'fingerprint', 'listAuditEvents', 'openDatabase', 'migrate', 'SnapshotNotFoundError', 'suspendedRunsRoute']) {
      expect(names).toContain(name);
    }
  }, 150_000);
});
