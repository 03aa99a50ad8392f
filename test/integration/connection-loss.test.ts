import pg from 'pg';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import { needing } from '../helpers/needs.js';
import { uniqueSchema } from '../helpers/db.js';

const run = promisify(execFile);
const databaseUrl = process.env.DATABASE_URL;
const schemas: string[] = [];

afterAll(async () => {
  if (!databaseUrl || schemas.length === 0) return;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

interface Report {
  pids: number[];
  terminated: number;
  rejected?: string;
  warnings: Record<string, unknown>[];
  after: { pids: number[]; schemas: string[] };
}

/**
 * Runs the scenario in its own process: an unhandled 'error' event from pg ends a process, and
 * only another process can see that happen.
 */
async function scenario(mode: string): Promise<{ code: number; stderr: string; report?: Report; schema: string }> {
  const schema = uniqueSchema('connloss');
  schemas.push(schema);
  return run(process.execPath, [bundledFixture('test/helpers/connection-loss-child.ts')], {
    env: { ...process.env, CHILD_MODE: mode, CHILD_SCHEMA: schema },
    timeout: 30_000,
  }).then(
    (r) => ({ code: 0, stderr: r.stderr, report: JSON.parse(r.stdout.trim().split('\n').pop()!) as Report, schema }),
    // Only the headlines of a crash: its full dump holds the pg client, connection settings included.
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: headlines(e.stderr), schema }),
  );
}

function headlines(text: string): string {
  return text.split('\n').filter((line) => /^\S/.test(line)).slice(0, 10).join('\n');
}

/** One warn line per dropped connection, naming its backend, and nothing that could hold a credential. */
function expectOneWarningEach(report: Report): void {
  expect(report.warnings).toHaveLength(report.pids.length);
  for (const line of report.warnings) {
    expect(line).toMatchObject({ level: 40, msg: expect.stringMatching(/^database connection lost/) });
  }
  expect(report.warnings.map((line) => line.backendPid).sort()).toEqual([...report.pids].sort());
  const text = JSON.stringify(report.warnings);
  expect(text).not.toContain(databaseUrl);
  expect(text).not.toMatch(/connectionString|password/i);
  const password = decodeURIComponent(new URL(databaseUrl!).password);
  if (password) expect(text).not.toContain(password);
}

/** The pool works again on new connections, in the schema it was opened with. */
function expectReconnected(report: Report, schema: string): void {
  expect(report.after.pids.length).toBeGreaterThan(0);
  expect(report.after.pids.filter((pid) => report.pids.includes(pid))).toEqual([]);
  expect(report.after.schemas).toEqual([schema]);
}

describe('a connection PostgreSQL terminates (postgres)', needing('postgres'), () => {
  it('idle in the pool: the process stays up, logs one line per connection and reconnects', async () => {
    const { code, stderr, report, schema } = await scenario('idle');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(report!.pids).toHaveLength(3);
    expect(report!.terminated).toBe(3);
    expectOneWarningEach(report!);
    expectReconnected(report!, schema);
  }, 40_000);

  it('checked out between two statements of a transaction: the next statement rejects, the pool goes on', async () => {
    const { code, stderr, report, schema } = await scenario('transaction');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(report!.terminated).toBe(1);
    expect(report!.rejected).toBeDefined();
    expectOneWarningEach(report!);
    expectReconnected(report!, schema);
  }, 40_000);

  it('while a statement runs on it: that statement rejects, the pool goes on', async () => {
    const { code, stderr, report, schema } = await scenario('in-flight');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(report!.terminated).toBe(1);
    expect(report!.rejected).toMatch(/terminating connection due to administrator command/);
    expectOneWarningEach(report!);
    expectReconnected(report!, schema);
  }, 40_000);
});
