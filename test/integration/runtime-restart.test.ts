import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import { uniqueSchema } from '../helpers/db.js';
import { migratedDataDir } from '../helpers/migrated-data-dir.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describeBackends('restart on %s', (backend) => {
  it('a second Node process lists the suspended run and approves it; the snapshot is then gone', async () => {
    const schema = uniqueSchema('restart');
    const dir = tempDir('approval-bot-restart-');
    dirs.push(dir);
    // On PGlite, a DATA_DIR as a bot's earlier start left it (migrated-data-dir.ts): initdb is no part of a restart.
    const dataDir = backend === 'postgres' ? join(dir, 'data') : await migratedDataDir(join(dir, 'data'));
    const options = backend === 'postgres' ? { databaseUrl: process.env.DATABASE_URL!, schema } : { dataDir, schema };
    const first = await openDatabase(options);
    await migrate(first.db);
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({
      model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'abc-123' } }] }]),
      tools: { delete_record: tool },
      storage: first,
    });
    const suspended = await agent.generate('delete abc-123', { threadId: 'restart-thread', resourceId: 'T1' });
    expect(suspended.finishReason).toBe('suspended');
    const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots WHERE run_id = ${suspended.runId}`.execute(first.db);
    expect(rows.rows[0]!.n).toBe(1);
    // PGlite is single-process: this process lets go of the files, as a stopped bot would.
    await first.close();

    const { stdout } = await run(process.execPath, [bundledFixture('test/helpers/restart-child.ts')], {
      env: { ...process.env, CHILD_BACKEND: backend, CHILD_SCHEMA: schema, CHILD_DATA_DIR: dataDir },
      timeout: 60_000,
    });
    const child = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(child.pid).not.toBe(process.pid);
    expect(child.runs).toEqual([
      expect.objectContaining({
        runId: suspended.runId,
        threadId: 'restart-thread',
        resourceId: 'T1',
        toolCalls: [expect.objectContaining({ toolName: 'delete_record', args: { id: 'abc-123' }, requiresApproval: true })],
      }),
    ]);
    expect(child.text).toBe('approved in another process');
    expect(child.calls).toEqual([{ id: 'abc-123' }]);
    expect(child.snapshotsLeft).toBe(0);
    expect(child.again).toMatch(/snapshot not found/);
    expect(calls).toHaveLength(0);

    if (backend === 'postgres') {
      const cleanup = await openDatabase({ databaseUrl: process.env.DATABASE_URL! });
      await sql.raw(`DROP SCHEMA ${schema} CASCADE`).execute(cleanup.db);
      await cleanup.close();
    }
  }, 90_000);
});
