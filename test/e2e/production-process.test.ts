import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { createTestDatabase, type Backend, type TestDatabase } from '../helpers/db.js';
import { migratedDataDir } from '../helpers/migrated-data-dir.js';
import { needing } from '../helpers/needs.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { appMentionEnvelope, FAKE_BOT_TOKEN, SLACK_IDS, slackSender, type SlackSimulator, startSlackSimulator } from '../../src/simulator/index.js';
import { buttonClick, mention, textOf, waitForCard, waitForText, waitForUpdate, type Bot } from '../helpers/slack-bot.js';
import { watchProcess } from '../helpers/watch-process.js';
import { mcpHttpServer } from '../helpers/mcp-http-server.js';
import { botDatabase, urlWithSchema } from '../helpers/bot-database.js';
import { tempDir } from '../helpers/temp-dir.js';
import { someoneWaitsForALock } from '../helpers/row-locks.js';

/**
 * The bot as production runs it: the entry point in a process of its own (through `npm start`,
 * as a supervisor would start it, or the built entry point as `npm run start:prod` and the
 * Docker image start it), in HTTP mode against the fake Slack and a fake model provider,
 * stopped with a signal. What is not about the embedded database runs on PostgreSQL when
 * DATABASE_URL is set (a schema of its own per test: a start there costs a fraction of a PGlite
 * start), on PGlite otherwise; Ctrl-C under `npm start` and the PGlite hand-over stay on the
 * embedded default. Each PGlite DATA_DIR starts as an earlier start left it (migrated): the first
 * start's initdb is fresh-clone's and team-repository's to test. The tests are independent (each
 * its own fakes, bot and database) and run concurrently: much of each is waiting (retries, drains).
 */

const ROOT = resolve(import.meta.dirname, '../..');
const SECRET = 'production-test-signing-secret';
const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';
const dir = tempDir('approval-bot-prod-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The tests that are not about `npm start` run the built entry point: no TypeScript compiled at each start.
beforeAll(ensureBuiltPackage, 300_000);
const BUILT_MAIN = 'dist/src/main.js';

interface MainProcess {
  child: ChildProcess;
  port: number;
  url: string;
  logs: string[];
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<Record<string, unknown>>;
  bot: Bot;
}

/** Starts `npm start` (or plain node on the built entry point) and waits for its HTTP port. */
async function startMain(fake: SlackSimulator, env: Record<string, string>, how: 'npm' | 'node' = 'npm', portLine = /^Slack app started$/): Promise<MainProcess> {
  const fullEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', LOG_FORMAT: 'json', PORT: '0', ...env };
  const child =
    how === 'npm'
      ? spawn('npm', ['start', '--silent'], { cwd: ROOT, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, [BUILT_MAIN], { cwd: ROOT, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  const waiters: Array<() => void> = [];
  let buffered = '';
  const onData = (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    logs.push(...lines.filter((l) => l.trim() !== ''));
    for (const w of waiters.splice(0)) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const parsed = () => logs.flatMap((l) => { try { return [JSON.parse(l) as Record<string, unknown>]; } catch { return []; } });
  const waitForLog = async (pattern: RegExp, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    void exited.then(() => (ended = true));
    for (;;) {
      const hit = parsed().find((l) => pattern.test(String(l.msg)));
      if (hit) return hit;
      if (ended || Date.now() > deadline) throw new Error(`no log line matching ${pattern}; got:\n${logs.join('\n')}`);
      await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 200); });
    }
  };
  const started = await waitForLog(portLine);
  const port = Number(started.port);
  const url = `http://127.0.0.1:${port}`;
  return { child, port, url, logs, exited, waitForLog, bot: { send: slackSender(`${url}/slack/events`, SECRET), fake } as unknown as Bot };
}

/** One sample of a metric from Prometheus text, matching every label given; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(match[3]);
  }
  return 0;
}

/** The environment for a database of `backend`: PostgreSQL in the test's own schema, or PGlite in a directory. */
function databaseEnv(backend: Backend, db: TestDatabase | undefined, dataDir: string): Record<string, string> {
  return backend === 'postgres'
    ? { DATABASE_URL: urlWithSchema(process.env.DATABASE_URL!, db!.schema) }
    : { DATA_DIR: dataDir };
}

/** A DATA_DIR of this file's, migrated (see migrated-data-dir.ts). */
const dataDir = (name: string) => migratedDataDir(join(dir, name));

/** What a test started, stopped when it ends (in reverse): its own, as the tests run concurrently. */
interface Cleanup {
  running: MainProcess[];
  closers: Array<() => Promise<unknown>>;
}
function cleanup({ onTestFinished }: TestContext): Cleanup {
  const own: Cleanup = { running: [], closers: [] };
  onTestFinished(async () => {
    for (const p of own.running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const close of own.closers.splice(0).reverse()) await close().catch(() => undefined);
  });
  return own;
}

/**
 * The database of a test whose subject is not the embedded one: a schema of its own on PostgreSQL
 * when DATABASE_URL is set, else a migrated PGlite DATA_DIR named `name`.
 */
async function anyDatabaseEnv(own: Cleanup, name: string): Promise<Record<string, string>> {
  const database = await botDatabase(join(dir, name));
  own.closers.push(() => database.drop());
  return database.env;
}

async function fakes(own: Cleanup, script: Parameters<typeof startFakeOpenAI>[0]): Promise<{ fake: SlackSimulator; model: FakeOpenAI; env: Record<string, string> }> {
  const fake = await startSlackSimulator();
  const model = await startFakeOpenAI(script);
  own.closers.push(() => fake.close(), () => model.close());
  return {
    fake,
    model,
    env: {
      SLACK_BOT_TOKEN: FAKE_BOT_TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: fake.apiUrl,
      MODEL: 'openai/gpt-5-mini',
      OPENAI_API_KEY: 'sk-test-not-a-real-key',
      OPENAI_BASE_URL: model.baseUrl,
    },
  };
}

describe.concurrent('npm start in HTTP mode: health, readiness, metrics and a clean stop', () => {
  it('serves /healthz and /readyz, counts an approval cycle in /metrics, and on SIGTERM drains and exits 0', async (context) => {
    const own = cleanup(context);
    const { fake, env } = await fakes(own, [{ toolCalls: [{ name: 'delete_record', args: { id: 'abc-123' } }] }, { text: 'Deleted record abc-123.' }]);
    const main = await startMain(fake, { ...env, ...(await anyDatabaseEnv(own, 'cycle')), SWEEP_INTERVAL_MS: '300' });
    own.running.push(main);

    expect((await fetch(`${main.url}/healthz`)).status).toBe(200);
    // Slack refuses the token: not ready, with the reason, though the process itself is alive.
    fake.failNext('auth.test', { error: 'token_revoked' });
    const unready = await fetch(`${main.url}/readyz`);
    expect(unready.status).toBe(503);
    expect(await unready.json()).toMatchObject({ ready: false, reason: 'slack_auth_failed', detail: 'token_revoked' });
    expect((await fetch(`${main.url}/healthz`)).status).toBe(200);
    // Slack accepts it again: ready (a failure is not remembered, a success is for a minute).
    const ready = await fetch(`${main.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true });
    const before = await (await fetch(`${main.url}/metrics`)).text();
    expect(sample(before, 'approval_bot_decisions_total', { outcome: 'approved' })).toBe(0);

    // Slack has a hiccup when the card is posted: the Web API call is retried (and counted).
    fake.failNext('chat.postMessage', { status: 503 });
    const thread = await mention(main.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete record abc-123' });
    const card = await waitForCard(fake, thread, 'approval');
    const pending = await (await fetch(`${main.url}/metrics`)).text();
    expect(sample(pending, 'approval_bot_open_requests', { kind: 'approval', state: 'pending' })).toBe(1);
    expect(sample(pending, 'approval_bot_open_runs', { status: 'suspended' })).toBe(1);

    const click = await main.bot.send.interaction(buttonClick(card, ALICE, ACTION_IDS.approve).payload);
    expect(click.status).toBe(200);
    await waitForUpdate(fake, card, `Approved by <@${ALICE}>`);
    await waitForText(fake, thread, 'Deleted record abc-123.');

    const response = await fetch(`${main.url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const after = await response.text();
    expect(sample(after, 'approval_bot_decisions_total', { outcome: 'approved' })).toBe(1);
    expect(sample(after, 'approval_bot_time_to_decision_seconds_count', { outcome: 'approved' })).toBe(1);
    expect(sample(after, 'approval_bot_slack_acks_total', { type: 'event_callback' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'approval_bot_slack_acks_total', { type: 'block_actions' })).toBe(1);
    expect(sample(after, 'approval_bot_slack_ack_duration_seconds_count', { type: 'block_actions' })).toBe(1);
    expect(sample(after, 'approval_bot_model_calls_total')).toBe(2);
    expect(sample(after, 'approval_bot_model_call_errors_total')).toBe(0);
    expect(sample(after, 'approval_bot_open_requests', { kind: 'approval', state: 'pending' })).toBe(0);
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(after, 'approval_bot_slack_api_retries_total')).toBe(1);
    expect(sample(after, 'approval_bot_sweeps_total', { result: 'ok' })).toBeGreaterThanOrEqual(1);

    // npm passes the signal on to the bot, which stops cleanly.
    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
    await main.waitForLog(/^stopped$/);
    expect(main.logs.join('\n')).not.toContain(FAKE_BOT_TOKEN);
  }, 180_000);

  it('a /metrics token, when configured, is required; a model that cannot be reached counts as a failed call', async (context) => {
    const own = cleanup(context);
    const { fake, env } = await fakes(own, [{ text: 'hi' }]);
    // Nothing listens there: the provider call fails after its retries.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const unreachable = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
    await new Promise((r) => closed.close(r));
    const main = await startMain(fake, { ...env, OPENAI_BASE_URL: unreachable, ...(await anyDatabaseEnv(own, 'token')), METRICS_TOKEN: 'scrape-me' }, 'node');
    own.running.push(main);
    expect((await fetch(`${main.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${main.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const thread = await mention(main.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete record abc-123' });
    // Three attempts with backoff (250 ms, 1 s) before the thread is told: more than the default wait on a busy machine.
    await fake.waitFor((c) => c.method === 'chat.postMessage' && c.args.thread_ts === thread.threadTs, { timeoutMs: 30_000 });
    const scraped = await fetch(`${main.url}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(sample(text, 'approval_bot_model_calls_total')).toBe(1);
    expect(sample(text, 'approval_bot_model_call_errors_total')).toBe(1);
    main.child.kill('SIGINT');
    expect(await main.exited).toBe(0);
  }, 120_000);
});

describe.concurrent('Socket Mode', () => {
  it('serves the probes and metrics on PORT, acks through the socket are counted, and SIGTERM closes the socket and exits 0', async (context) => {
    const own = cleanup(context);
    const { fake, env } = await fakes(own, [{ text: 'Hello over the socket.' }]);
    const { SLACK_SIGNING_SECRET: _unused, ...socketEnv } = env;
    const main = await startMain(fake, { ...socketEnv, SLACK_APP_TOKEN: fake.appToken, ...(await anyDatabaseEnv(own, 'socket')) }, 'node', /^health and metrics server listening$/);
    own.running.push(main);
    const connection = await fake.socket.waitForConnection();
    expect((await fetch(`${main.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${main.url}/readyz`)).status).toBe(200);

    const ts = `${Math.floor(Date.now() / 1000)}.000100`;
    fake.seedMessage({ channel: CHANNEL, text: `<@${SLACK_IDS.botUserId}> hello`, user: REQUESTER, ts });
    const envelope = fake.socket.event(appMentionEnvelope({ text: `<@${SLACK_IDS.botUserId}> hello`, user: REQUESTER, channel: CHANNEL, ts }));
    await fake.socket.waitForAck(envelope);
    await waitForText(fake, { channel: CHANNEL, threadTs: ts }, 'Hello over the socket.');
    const metrics = await (await fetch(`${main.url}/metrics`)).text();
    expect(sample(metrics, 'approval_bot_slack_acks_total', { type: 'event_callback' })).toBe(1);
    expect(sample(metrics, 'approval_bot_model_calls_total')).toBe(1);

    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
    await fake.socket.waitForClose(connection.id);
  }, 120_000);
});

describe.concurrent('a signal during start-up', () => {
  it('stops the bot once it is up, cleanly, instead of killing it half open', async (context) => {
    const own = cleanup(context);
    // An MCP server that answers only once the signal is in: start-up is held open between the
    // database and the sandbox for as long as the test needs, however slow the machine.
    let answer!: () => void;
    const mcp = await mcpHttpServer({ held: new Promise<void>((resolve) => (answer = resolve)) });
    own.closers.push(async () => answer(), () => mcp.stop());
    const servers = join(mkdtempSync(join(dir, 'mcp-')), 'mcp.json');
    writeFileSync(servers, JSON.stringify({ mcpServers: { tracker: { url: mcp.url } } }));
    const child = spawn(process.execPath, [BUILT_MAIN], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', MCP_SERVERS: servers, ...(await anyDatabaseEnv(own, 'early')), LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    own.closers.push(async () => void child.kill('SIGKILL'));
    const watched = watchProcess(child);
    // The database is open and migrated; the agents and the sandbox are not up yet (their MCP server has not answered).
    await watched.waitFor((output) => output.includes('"database ready"') || undefined);
    child.kill('SIGTERM');
    await watched.waitFor((output) => output.includes('signal during start-up') || undefined);
    answer();
    expect(await watched.exited).toBe(0);
    const messages = watched.output().split('\n').filter(Boolean).map((l) => String((JSON.parse(l) as { msg: unknown }).msg));
    expect(messages).toContain('signal during start-up: stopping as soon as start-up is done');
    const up = messages.findIndex((m) => m.startsWith('Sandbox ready'));
    expect(messages.indexOf('signal during start-up: stopping as soon as start-up is done')).toBeLessThan(up);
    expect(messages.indexOf('stopped')).toBeGreaterThan(up);
  }, 120_000);
});

describe.concurrent('LOG_FORMAT=pretty', () => {
  it('logs one readable line per entry and prints the sandbox URL on a line of its own', async (context) => {
    const own = cleanup(context);
    const child = spawn(process.execPath, [BUILT_MAIN], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', ...(await anyDatabaseEnv(own, 'pretty')), LOG_FORMAT: 'pretty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    own.closers.push(async () => void child.kill('SIGKILL'));
    const watched = watchProcess(child);
    const url = await watched.waitFor((output) => /^\s*(http:\/\/127\.0\.0\.1:\d+)\s*$/m.exec(output)?.[1]);
    child.kill('SIGTERM');
    expect(await watched.exited).toBe(0);
    const output = watched.output();
    expect(output).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Sandbox ready: open http:\/\/127\.0\.0\.1:\d+ to talk to the bot/m);
    expect(output).toContain(`INFO: stopped`);
    expect(output).not.toMatch(/^\{"level"/m);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  }, 120_000);
});

describe.concurrent('SIGTERM with a click in flight (PostgreSQL)', needing('postgres'), () => {
  it('the click is recorded and acknowledged before the process exits 0, and new requests are refused', async (context) => {
    const own = cleanup(context);
    const db = await createTestDatabase('postgres');
    own.closers.push(() => db.close());
    const { fake, env } = await fakes(own, [{ toolCalls: [{ name: 'delete_record', args: { id: 'abc-123' } }] }, { text: 'Deleted record abc-123.' }]);
    const main = await startMain(fake, { ...env, ...databaseEnv('postgres', db, '') }, 'node');
    own.running.push(main);
    const thread = await mention(main.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete record abc-123' });
    const card = await waitForCard(fake, thread, 'approval');

    // Hold the request's row, so the click's write waits inside the bot while the signal arrives.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holding = db.db.transaction().execute(async (trx) => {
      await sql`SELECT 1 FROM pending_actions WHERE id = ${card.actionId} FOR UPDATE`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    const click = main.bot.send.interaction(buttonClick(card, ALICE, ACTION_IDS.approve).payload);
    await someoneWaitsForALock(db.db, { what: 'the click never reached its write' });
    main.child.kill('SIGTERM');
    await main.waitForLog(/^shutting down/);
    // Longer than a stopping server would once wait before cutting connections still open.
    await new Promise((r) => setTimeout(r, 1_000));
    // Stopped taking requests, still finishing the one in flight.
    await expect(fetch(`${main.url}/healthz`)).rejects.toThrow();
    expect(main.child.exitCode).toBeNull();
    release();
    await holding;

    expect((await click).status).toBe(200);
    expect(await main.exited).toBe(0);
    const row = await sql<{ status: string }>`SELECT status FROM pending_actions WHERE id = ${card.actionId}`.execute(db.db);
    expect(row.rows[0]!.status).toBe('approved');
    // Drained: the approved call ran and its answer was posted before exit.
    expect(fake.calls.some((c) => c.method === 'chat.postMessage' && textOf(c).includes('Deleted record abc-123.'))).toBe(true);
  }, 180_000);
});

// As describeBackends, but concurrent with the groups above.
for (const backend of ['postgres', 'pglite'] as const) describe.concurrent(`a shutdown out of time on ${backend}`, backend === 'postgres' ? needing('postgres') : {}, () => {
  it('hands a run stuck in a model call over, exits 1 saying so, and another instance carries the run on at once', async (context) => {
    const own = cleanup(context);
    const db = backend === 'postgres' ? await createTestDatabase('postgres') : undefined;
    if (db) own.closers.push(() => db.close());
    const handoverDir = backend === 'pglite' ? await dataDir(`handover-${backend}`) : '';
    // A provider that never answers: the run waits inside its model call.
    const hung: ServerResponse[] = [];
    const stuck = createServer((_req, res) => void hung.push(res));
    await new Promise<void>((r) => stuck.listen(0, '127.0.0.1', r));
    own.closers.push(() => new Promise((r) => { for (const res of hung) res.destroy(); stuck.close(() => r(undefined)); }));
    const { fake, env } = await fakes(own, [{ text: 'Finished after the takeover.' }]);
    const stuckEnv = { ...env, OPENAI_BASE_URL: `http://127.0.0.1:${(stuck.address() as AddressInfo).port}/v1` };
    const timings = { RUN_LEASE_MS: '600000', SWEEP_INTERVAL_MS: '200', SHUTDOWN_TIMEOUT_MS: '1500' };
    const first = await startMain(fake, { ...stuckEnv, ...timings, ...databaseEnv(backend, db, handoverDir) }, 'node');
    own.running.push(first);

    const thread = await mention(first.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete record abc-123' });
    while (hung.length === 0) await new Promise((r) => setTimeout(r, 50));
    // Past recordRunAfterMs (250 ms): the run is on record, claimed by this process.
    while (sample(await (await fetch(`${first.url}/metrics`)).text(), 'approval_bot_open_runs', { status: 'running' }) !== 1) {
      await new Promise((r) => setTimeout(r, 50));
    }
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(1);
    const timedOut = await first.waitForLog(/^shutdown timed out/);
    expect(timedOut.handedOver).toHaveLength(1);

    // The lease is ten minutes; the run is taken over at the next sweep all the same.
    const second = await startMain(fake, { ...env, ...timings, ...databaseEnv(backend, db, handoverDir) }, 'node');
    own.running.push(second);
    const answer = await waitForText(fake, thread, 'Finished after the takeover.');
    expect(textOf(answer)).toContain('Finished after the takeover.');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    if (backend === 'pglite') {
      const reopened = await openDatabase({ dataDir: handoverDir });
      own.closers.push(() => reopened.close());
      const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_snapshots`.execute(reopened.db);
      expect(Number(left.rows[0]!.n)).toBe(0);
    }
  }, 240_000);
});

describe('Ctrl-C in the terminal running npm start', () => {
  // The embedded default: what a person at a terminal runs with no DATABASE_URL. Not concurrent with
  // the other starts: npm's copy of the signal must arrive within SAME_SIGNAL_MS of the terminal's.
  it('drains and exits 0: the terminal signals the whole process group and npm passes its copy on, which counts as one Ctrl-C', async () => {
    // Its own process group, as a terminal's foreground job is.
    const child = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', DATA_DIR: await dataDir('ctrl-c'), LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const watched = watchProcess(child);
    await watched.waitFor((output) => output.includes('Sandbox ready') || undefined);
    process.kill(-child.pid!, 'SIGINT');
    expect(await watched.exited).toBe(0);
    expect(watched.output()).toContain('"msg":"stopped"');
    expect(watched.output()).not.toContain('second signal');
  }, 120_000);
});
