/**
 * Every code block of the README, compiled and run as a user would run it:
 * compiled by tsc against the declarations the package ships, the JavaScript it
 * emits run by node, importing the package by name (the built one), with `openai/<model>`
 * answered by a fake OpenAI Responses API and Slack by the fake Slack, both on
 * loopback (OPENAI_BASE_URL, SLACK_API_URL). A block without a scenario here
 * fails the suite, so a new snippet cannot go untried.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase, type BotDatabase } from '../helpers/bot-database.js';
import { readmeSnippets } from '../helpers/readme-snippets.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { FAKE_BOT_TOKEN, slackSender, type SlackSimulator, startSlackSimulator } from '../../src/simulator/index.js';
import { clickButton, mention, SIGNING_SECRET, textOf, waitForCard, waitForText, type Bot } from '../helpers/slack-bot.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const DIR = join(ROOT, '.snippets');
/** What tsc emits for each snippet: `<name>.js`. */
const OUT = join(DIR, 'out');

const snippets = readmeSnippets();
const scenarios = ['use-from-code', 'preview', 'agents-module', 'create-slack-bot'];

describe('README code blocks', () => {
  let openai: FakeOpenAI | undefined;
  let child: ChildProcess | undefined;
  let work: string;
  /** What tsc printed compiling the snippets: nothing when every one compiles. */
  let compiled: string;
  beforeAll(async () => {
    // The snippets import the package by name: its built copy.
    await ensureBuiltPackage();
    mkdirSync(DIR, { recursive: true });
    for (const [name, code] of snippets) writeFileSync(join(DIR, `${name}.ts`), code);
    work = tempDir('readme-');
    const config = join(DIR, 'tsconfig.json');
    // Against the declarations the package ships (dist/src/*.d.ts), as in a user's project: with
    // this repository's outDir, TypeScript would map the package's own name back to src/ and
    // check all of it again (typecheck's work) besides the snippets.
    writeFileSync(config, JSON.stringify({ extends: '../tsconfig.json', include: ['./*.ts'], compilerOptions: { rootDir: '.', outDir: 'out', declaration: false } }));
    const result = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', config], { cwd: ROOT, timeout: 120_000 }).catch((e: { stdout?: string }) => e);
    compiled = (result as { stdout?: string }).stdout ?? '';
  }, 240_000);
  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    await openai?.close();
    openai = undefined;
  });
  const databases: BotDatabase[] = [];
  afterAll(async () => {
    await Promise.all(databases.map((d) => d.drop()));
    rmSync(DIR, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('has a scenario for every block, and every block compiles', () => {
    expect([...snippets.keys()].sort()).toEqual([...scenarios].sort());
    expect(compiled).toBe('');
  });

  /**
   * A folder to run a snippet in, and its database, which the snippets take from DATABASE_URL (as
   * the README writes them): a PostgreSQL schema of its own when the test run has DATABASE_URL, the
   * snippet migrating it; else embedded PGlite in the folder's `.data` (where openDatabase puts it
   * without DATABASE_URL) as an earlier run left it, without PGlite's initdb and every migration
   * from nothing each time (fresh-clone tests a first start). See bot-database.ts.
   */
  const folder = async (prefix: string) => {
    const cwd = mkdtempSync(join(work, prefix));
    const database = await botDatabase(join(cwd, '.data'));
    databases.push(database);
    return { cwd, database: database.env.DATABASE_URL };
  };

  const env = (database: string | undefined, extra: Record<string, string> = {}) => {
    const base: Record<string, string | undefined> = { ...process.env, OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: openai!.baseUrl, ...extra };
    // Without it, the embedded PGlite in the folder's .data, as a user without DATABASE_URL would run it.
    if (database) base.DATABASE_URL = database;
    else delete base.DATABASE_URL;
    return base;
  };

  it('use-from-code: the approval chunk, then the answer after approving', async () => {
    openai = await startFakeOpenAI([{ toolCalls: [{ name: 'delete_record', args: { id: 'abc-123' } }] }, { text: 'Deleted abc-123.' }]);
    const { cwd, database } = await folder('code-');
    const { stdout } = await run(process.execPath, [join(OUT, 'use-from-code.js')], { cwd, env: env(database), timeout: 60_000 });
    expect(stdout).toMatch(/needs approval \{[\s\S]*toolName: 'delete_record'[\s\S]*id: 'abc-123'/);
    expect(stdout.trim().split('\n').at(-1)).toBe('Deleted abc-123.');
    expect(openai.requests).toHaveLength(2);
  }, 90_000);

  it("preview: the agent's reason and the preview on the request; the record changes, so approving asks again; approved again, it runs", async () => {
    const reason = 'The customer asked to downgrade in ticket 981.';
    openai = await startFakeOpenAI([
      { toolCalls: [{ name: 'change_plan', args: { customerId: 'c-42', plan: 'free', _approval_reason: reason } }] },
      { text: 'Moved c-42 to the free plan.' },
    ]);
    const { cwd, database } = await folder('preview-');
    const { stdout } = await run(process.execPath, [join(OUT, 'preview.js')], { cwd, env: env(database), timeout: 60_000 });
    const lines = stdout.trim().split('\n');
    expect(stdout).toMatch(new RegExp(`^asked ${reason} \\{[\\s\\S]*c-42, 10 seats[\\s\\S]*stateDigest: 'v7'`, 'm'));
    expect(stdout).toMatch(/^asked again \{ fromActionId: \d+, why: 'state-changed' \} \{[\s\S]*c-42, 25 seats[\s\S]*stateDigest: 'v8'/m);
    expect(lines.at(-1)).toBe('Moved c-42 to the free plan.');
    // The model was given the reserved field; it was called for the step that asked and once the call had run.
    expect(JSON.stringify(openai.requests[0]!.tools)).toContain('_approval_reason');
    expect(openai.requests).toHaveLength(2);
  }, 90_000);

  it('agents-module: exports an agent the bot can attach and a policy, and the agent asks before closing a ticket', async () => {
    openai = await startFakeOpenAI([{ toolCalls: [{ name: 'close_ticket', args: { id: 7 } }] }]);
    const driver = join(DIR, 'drive-agents-module.mjs');
    writeFileSync(
      driver,
      `import { openDatabase, migrate } from 'slack-approval-bot';
      const module = await import(${JSON.stringify(pathToFileURL(join(OUT, 'agents-module.js')).href)});
      const storage = await openDatabase({ databaseUrl: process.env.DATABASE_URL });
      await migrate(storage.db);
      const agent = module.default.attach({ storage, policy: module.policy });
      const result = await agent.generate('close ticket 7', { requester: 'U0ASKER' });
      console.log(JSON.stringify({ finishReason: result.finishReason, call: result.suspendPayload, approvers: module.policy.tools.close_ticket.approvers }));
      await storage.close();`,
    );
    const { cwd, database } = await folder('module-');
    const { stdout } = await run(process.execPath, [driver], { cwd, env: env(database), timeout: 60_000 });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
      finishReason: 'suspended',
      call: expect.objectContaining({ kind: 'approval', toolName: 'close_ticket', args: { id: 7 } }),
      approvers: ['S0SUPPORTLEADS'],
    });
  }, 90_000);

  describe('create-slack-bot', () => {
    let slack: SlackSimulator;
    beforeAll(async () => {
      slack = await startSlackSimulator();
    });
    afterAll(async () => {
      await slack.close();
    });

    it('serves Slack in the user’s own server: a refund asked for, approved by someone else, done', async () => {
      openai = await startFakeOpenAI([{ toolCalls: [{ name: 'issue_refund', args: { orderId: '1042', amountCents: 2500 } }] }, { text: 'Refunded $25 on order 1042.' }]);
      const port = await freePort();
      const { cwd, database } = await folder('bot-');
      child = spawn(process.execPath, [join(OUT, 'create-slack-bot.js')], {
        cwd,
        env: env(database, { SLACK_BOT_TOKEN: FAKE_BOT_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: slack.apiUrl, PORT: String(port) }),
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const url = `http://127.0.0.1:${port}/slack/events`;
      // The user's server answers its other paths (404) once it listens, which it does after bot.start().
      await waitForServer(`http://127.0.0.1:${port}/`);
      const b = { fake: slack, send: slackSender(url, SIGNING_SECRET), url } as unknown as Bot;
      const thread = await mention(b, { user: 'U0REQUESTER', channel: 'C0CHANNEL01', text: 'refund $25 on order 1042' });
      const card = await waitForCard(slack, thread, 'approval');
      expect(textOf(card.call)).toContain('issue_refund');
      await clickButton(b, card, 'U0ALICE', ACTION_IDS.approve);
      await waitForText(slack, thread, 'Refunded $25 on order 1042.');
    }, 240_000);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolvePort(port));
    });
    server.on('error', reject);
  });
}

async function waitForServer(url: string): Promise<void> {
  // Start-up opens PGlite and migrates: slow on a loaded machine.
  for (let i = 0; i < 1200; i++) {
    const up = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(() => true, () => false);
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listening at ${url}`);
}
