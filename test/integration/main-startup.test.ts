import { execFile, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase } from '../helpers/bot-database.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const dir = tempDir('approval-bot-main-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The entry point as built (what `npm run start:prod` and the Docker image run): no TypeScript compiled at each start.
beforeAll(ensureBuiltPackage, 300_000);
const MAIN = ['dist/src/main.js'];

/** Starts the entry point with the given environment and returns how it ended. */
async function start(env: Record<string, string>) {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info' };
  return run(process.execPath, MAIN, { env: { ...base, ...env }, timeout: 60_000 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

// Each test starts processes of its own: they run concurrently.
describe.concurrent('start-up refuses bad configuration, naming what is wrong', () => {
  it('a malformed variable', async () => {
    const r = await start({ PORT: 'eighty' });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/PORT/);
  });

  it('an invalid policy file names the field', async () => {
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, 'tools:\n  issue_refund:\n    quorum: two\n');
    const r = await start({ POLICY_FILE: file });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/tools\.issue_refund\.quorum/);
  });

  it('Slack without a model, and a model without its key', async () => {
    const slack = await start({ SLACK_BOT_TOKEN: 'xoxb-1-2', SLACK_SIGNING_SECRET: 'x' });
    expect(slack.code).toBe(1);
    expect(slack.out).toMatch(/MODEL is required/);
    const keyless = await start({ MODEL: 'anthropic/claude-sonnet-4-5' });
    expect(keyless.code).toBe(1);
    expect(keyless.out).toMatch(/ANTHROPIC_API_KEY/);
    expect(keyless.out).not.toContain('xoxb-1-2');
  });
});

/**
 * Starts the entry point on `database` (DATA_DIR, or DATABASE_URL) and resolves with the model its
 * "model selected" log line names, once it has stopped again (SIGTERM).
 */
async function selectedModel(database: Record<string, string>, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, MAIN, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...database, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let output = '';
  try {
    return await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        for (const line of output.split('\n')) {
          if (line.includes('"model selected"')) resolve(JSON.parse(line).model);
        }
      });
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe.concurrent('model selection for the sandbox', () => {
  // Without a key, the built-in demo model: the demo's start below has none.
  it('uses the provider whose key is present', async () => {
    // The model is chosen after the database is open, which is not this test's subject: a schema of
    // its own on PostgreSQL when DATABASE_URL is set (cheaper to start), else a DATA_DIR as an
    // earlier start left it (migrated-data-dir.ts).
    const database = await botDatabase(join(dir, 'model'));
    try {
      expect(await selectedModel(database.env, { OPENAI_API_KEY: 'sk-test-not-used' })).toBe('openai/gpt-5-mini');
    } finally {
      await database.drop();
    }
  }, 120_000);
});

describe.concurrent('the demo, set up by the demo rather than by the migrations', () => {
  /** The demo's tables and how many records they hold, read once the process that wrote them has stopped. */
  async function demoTables(open: () => Promise<Database>): Promise<{ tables: string[]; records: number | undefined }> {
    const database = await open();
    try {
      const { rows } = await sql<{ table_name: string }>`
        SELECT table_name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_name LIKE 'demo\\_%' ORDER BY table_name`.execute(database.db);
      const tables = rows.map((r) => r.table_name);
      const records = tables.includes('demo_records')
        ? Number((await sql<{ n: string }>`SELECT count(*) AS n FROM demo_records`.execute(database.db)).rows[0]!.n)
        : undefined;
      return { tables, records };
    } finally {
      await database.close();
    }
  }

  it('npm run migrate creates no demo tables; npm start creates them and seeds them, on the built-in demo model without a provider key', async () => {
    // A database nothing has touched yet: a schema of its own on PostgreSQL when DATABASE_URL is
    // set, else an empty data directory. (PGlite's first start on an empty directory, its initdb,
    // is fresh-clone's quick start.)
    const dataDir = join(dir, 'demo');
    const database = process.env.DATABASE_URL
      ? await botDatabase(dataDir)
      : { env: { DATA_DIR: dataDir }, open: () => openDatabase({ dataDir }), drop: async () => {} };
    try {
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...database.env };
      await run(process.execPath, ['--import', 'tsx', 'src/cli/migrate.ts'], { env, timeout: 60_000 });
      expect(await demoTables(database.open)).toEqual({ tables: [], records: undefined });

      expect(await selectedModel(database.env, {})).toMatch(/^built-in demo model/);
      expect(await demoTables(database.open)).toEqual({ tables: ['demo_deployments', 'demo_orders', 'demo_records', 'demo_refunds'], records: 3 });
    } finally {
      await database.drop();
    }
  }, 120_000);
});
