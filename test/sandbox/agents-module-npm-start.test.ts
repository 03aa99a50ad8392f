/**
 * `AGENTS_MODULE=examples/agents.ts npm start`, the real npm script with no Slack variables:
 * it starts, serves the sandbox, a mention typed there reaches the example's agent (driven over
 * the sandbox's HTTP API, as its page does), and SIGTERM stops all of it. The module is the
 * subject, not the embedded database: a PostgreSQL schema of its own when DATABASE_URL is set, else
 * a DATA_DIR as an earlier start left it (bot-database.ts); a first start's initdb is fresh-clone's.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase, type BotDatabase } from '../helpers/bot-database.js';
import { npmStart, stopProcessGroup, type NpmStart } from '../helpers/sandbox/npm-start.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Message {
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  text: string;
  blocks?: Array<{ type: string; block_id?: string }>;
}

/** No Slack, no model: the variables that would change what `npm start` runs are removed. */
const UNSET = ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'SLACK_API_URL', 'MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'POLICY_FILE'];

/** Whether any process of the group is still running. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

describe('AGENTS_MODULE=examples/agents.ts npm start', { timeout: 180_000 }, () => {
  const dataDir = tempDir('agents-module-npm-start-');
  let app: NpmStart | undefined;
  let database: BotDatabase | undefined;

  // The example imports the package by name, as a team's module would: its built copy.
  beforeAll(ensureBuiltPackage, 300_000);
  afterAll(async () => {
    await stopProcessGroup(app?.child);
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function ui(path: string, body: unknown): Promise<{ status: number; json: any }> {
    const response = await fetch(`${app!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, json: await response.json() };
  }

  async function thread(ts: string): Promise<Message[]> {
    const state = (await (await fetch(`${app!.url}/ui/state?user=U0ALICE`)).json()) as { messages: Message[] };
    return state.messages.filter((m) => m.ts === ts || m.thread_ts === ts);
  }

  async function until<T>(find: () => Promise<T | undefined>, what: string): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = await find();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output:\n${app?.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('starts with the example agent, serves the sandbox, runs a mention through the agent, and stops on SIGTERM', async () => {
    const unset = Object.fromEntries(UNSET.map((name) => [name, undefined]));
    database = await botDatabase(dataDir);
    app = await npmStart({ ...unset, AGENTS_MODULE: 'examples/agents.ts', PORT: '0', DATABASE_URL: '', ...database.env, LOG_LEVEL: 'info' });
    const lines = app.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.msg === 'policy loaded')).toMatchObject({ source: 'examples/agents.ts (export policy)', policyVersion: expect.stringMatching(/^support-example@/) });
    expect(lines.find((l) => l.msg === 'model selected')).toMatchObject({ model: 'example/offline-tickets' });

    const page = await fetch(`${app.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);

    // A tool that needs no approval: the example's agent answers from its stand-in tracker.
    const listed = await ui('/ui/message', { user: 'U0ALICE', channel: 'C0GENERAL', text: '@approvals list open tickets' });
    expect(listed.status).toBe(200);
    const list = await until(async () => (await thread(listed.json.ts)).find((m) => m.bot_id && m.text.includes('open tickets:')), 'the list');
    expect(list.text).toContain('#102 "Refund email has the wrong currency" (unassigned)');

    // A tool that does: its card, Approve over the sandbox API, and the ticket closed.
    const asked = await ui('/ui/message', { user: 'U0ALICE', channel: 'C0GENERAL', text: '@approvals close ticket 102' });
    const card = await until(async () => (await thread(asked.json.ts)).find((m) => m.blocks?.some((b) => b.block_id?.startsWith('approval:'))), 'the card');
    expect(card.text).toContain('Approval needed: Close ticket');
    const block = card.blocks!.find((b) => b.type === 'actions')!;
    const clicked = await ui('/ui/action', { user: 'U0BOB', channel: 'C0GENERAL', messageTs: card.ts, blockId: block.block_id, actionId: 'approval.approve' });
    expect(clicked.status).toBe(200);
    const done = await until(async () => (await thread(asked.json.ts)).find((m) => m.bot_id && m.text.includes('Closed ticket')), 'the answer');
    expect(done.text).toContain('Closed ticket #102');

    // SIGTERM to the whole group, as a terminal or a supervisor sends it: the bot drains and exits,
    // and nothing npm started is left behind.
    await stopProcessGroup(app.child);
    const { code, signal } = await app.exited;
    // npm reports a script it stopped for a signal by dying of that signal itself.
    expect(code === 0 || signal === 'SIGTERM').toBe(true);
    await until(async () => (groupAlive(app!.child.pid!) ? undefined : true), 'every process of npm start to exit');
    expect(app.output()).toContain('"signal":"SIGTERM","msg":"shutting down"');
    expect(app.output()).not.toMatch(/"level":(50|60)/);
    await expect(fetch(`${app.url}/`)).rejects.toThrow();
  });
});
