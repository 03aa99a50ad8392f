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

  it('and require() it from CommonJS: the same API from the CommonJS build', async () => {
    await ensureBuiltPackage();
    const script = `const m = require('slack-approval-bot'); console.log(JSON.stringify({ names: Object.keys(m).sort(), agent: new m.Agent({ id: 'cjs', model: 'openai/gpt-5-mini' }).model.provider }))`;
    const { stdout } = await run(process.execPath, ['-e', script], { timeout: 60_000 });
    const esm = await run(process.execPath, ['--input-type=module', '-e', `import('slack-approval-bot').then((m) => console.log(JSON.stringify(Object.keys(m).sort())))`], { timeout: 60_000 });
    const loaded = JSON.parse(stdout) as { names: string[]; agent: string };
    expect(loaded.names).toEqual(JSON.parse(esm.stdout));
    expect(loaded.agent).toBe('openai.responses');
  }, 150_000);
});
