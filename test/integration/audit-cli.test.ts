import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { parseAuditArgs } from '../../src/cli/parse-audit-args.js';
import { UsageError } from '../../src/cli/parse-command-line.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'approval-bot-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run audit', () => {
  it('prints the trail since a date as JSON lines, in order', async () => {
    const database = await openDatabase({ dataDir: dir });
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

    const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'silent' };
    const { stdout } = await run('npm', ['run', '--silent', 'audit', '--', '--since', '2000-01-01'], { env, timeout: 60_000 });
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.event)).toEqual(['requested', 'approved', 'consumed', 'executed']);
    expect(lines[1]).toMatchObject({ runId: first.runId, toolName: 'delete_record', actor: 'UBOSS' });
    expect(new Date(lines[0].at).toISOString()).toBe(lines[0].at);

    const future = await run('npm', ['run', '--silent', 'audit', '--', '--since', '2999-01-01'], { env, timeout: 60_000 });
    expect(future.stdout.trim()).toBe('');
    const bad = await run('npm', ['run', '--silent', 'audit', '--', '--since', 'yesterday-ish'], { env, timeout: 60_000 }).catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since: "yesterday-ish" is not a date/);
  }, 120_000);

  it('rejects unknown and incomplete arguments', () => {
    expect(() => parseAuditArgs(['--sinse', 'x'])).toThrow(UsageError);
    expect(() => parseAuditArgs(['--since'])).toThrow(/argument missing/);
    expect(parseAuditArgs(['--run', 'r1'])).toEqual({ runId: 'r1' });
  });
});
