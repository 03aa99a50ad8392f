import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase, type BotDatabase } from '../helpers/bot-database.js';
import { parseAuditArgs } from '../../src/cli/parse-audit-args.js';
import { UsageError } from '../../src/cli/parse-command-line.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const dir = tempDir('approval-bot-audit-');
beforeAll(ensureBuiltPackage, 300_000);
let store: BotDatabase | undefined;
afterAll(async () => {
  await store?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run audit', () => {
  it('prints the trail since a date as JSON lines, in order', async () => {
    // What the audit reads is no matter of the backend: a PostgreSQL schema of its own when
    // DATABASE_URL is set, else DATA_DIR as the bot's start-up left it (bot-database.ts). Each
    // PGlite open cost a process about 1.3 s of CPU, and the commands below open it three times.
    store = await botDatabase(join(dir, 'data'));
    const { DATABASE_URL: databaseUrl, DATA_DIR: dataDir } = store.env;
    const database = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir: dataDir! });
    await migrate(database.db);
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({
      model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'abc-123' } }] }, { text: 'done' }]),
      tools: { delete_record: tool },
      storage: database,
    });
    const first = await agent.generate('delete', { requester: 'UREQ' });
    await agent.approveToolCallGenerate({ runId: first.runId, actor: { userId: 'UBOSS' } });
    await database.close();

    const env = { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ...store.env };
    // Through npm as the README gives it; the other calls run the built command, whose behaviour they test.
    const { stdout } = await run('npm', ['run', '--silent', 'audit', '--', '--since', '2000-01-01'], { env, timeout: 60_000 });
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.event)).toEqual(['requested', 'approved', 'consumed', 'executed']);
    expect(lines[1]).toMatchObject({ runId: first.runId, toolName: 'delete_record', actor: 'UBOSS' });
    expect(new Date(lines[0].at).toISOString()).toBe(lines[0].at);

    const audit = (...args: string[]) => run(process.execPath, [join(ROOT, 'dist/src/cli/audit.js'), ...args], { env, timeout: 60_000 });
    const future = await audit('--since', '2999-01-01');
    expect(future.stdout.trim()).toBe('');
    const bad = await audit('--since', 'yesterday-ish').catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since: "yesterday-ish" is not a date/);
  }, 120_000);

  it('rejects unknown and incomplete arguments', () => {
    expect(() => parseAuditArgs(['--sinse', 'x'])).toThrow(UsageError);
    expect(() => parseAuditArgs(['--since'])).toThrow(/argument missing/);
    expect(parseAuditArgs(['--run', 'r1'])).toEqual({ runId: 'r1' });
  });
});
