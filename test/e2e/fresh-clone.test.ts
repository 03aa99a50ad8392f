/**
 * The README's doors from a fresh clone, as a newcomer walks them: the files a clone of this
 * repository has (what git tracks, as they are in the working tree: no node_modules, no .data)
 * copied to a temporary directory, `npm install` there (which builds the package through
 * `prepare`, incrementally from this working tree's build), then `npm start` in it, driven through the sandbox the way its page
 * drives it (its /ui routes):
 * - the quick start with a real provider setting, `MODEL=openai-compatible/…` against an
 *   OpenAI-compatible server on loopback: a mention, the card, Approve, the model's answer;
 * - "MCP tools": `MCP_SERVERS=mcp.yaml npm start` with no model key, the demo model listing the
 *   server's tools in its help and calling one by name, behind its card;
 * - "Your own agents" from a directory outside the clone: the README's module in a project of
 *   its own (zod installed, the clone as its `slack-approval-bot` dependency), started from the
 *   clone with `AGENTS_MODULE=../support-agents/agents.ts npm start`.
 *
 * The install needs only the npm registry, or its cache (`--prefer-offline`). The quick start runs
 * on the clone's own empty .data/, a newcomer's first start; the other two are about MCP and the
 * module, not the embedded database: a PostgreSQL schema each when DATABASE_URL is set, else a
 * DATA_DIR as a second start would find it (bot-database.ts).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase, type BotDatabase } from '../helpers/bot-database.js';
import { startFakeProviders, type FakeProviders, type Reply, type Turn } from '../helpers/fake-providers.js';
import { readmeSnippets } from '../helpers/readme-snippets.js';
import { npmStart, stopProcessGroup, type NpmStart } from '../helpers/sandbox/npm-start.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const work = tempDir('fresh-clone-');
const CLONE = join(work, 'slack-approval-bot');
const TEAM = join(work, 'support-agents');

/** The model behind the quick start and the team's module: "delete record X" and "close ticket N" become calls; a result is said back. */
function script(turns: Turn[]): Reply {
  const last = turns.at(-1);
  if (last?.role === 'tool') return { text: `The tool said: ${last.output}` };
  const text = last?.role === 'user' ? last.text : '';
  const record = /delete record (\S+)/.exec(text);
  if (record) return { toolCalls: [{ name: 'delete_record', args: { id: record[1] } }] };
  const ticket = /close ticket (\d+)/.exec(text);
  if (ticket) return { toolCalls: [{ name: 'close_ticket', args: { id: Number(ticket[1]) } }] };
  return { text: 'You are welcome.' };
}

type Message = { channel: string; ts: string; thread_ts?: string; bot_id?: string; text?: string; blocks?: Array<{ type: string; block_id?: string; elements?: Array<{ action_id?: string; type?: string }> }> };

/** The sandbox as its page uses it: post as someone, read the channel, click a card's button. */
function sandboxAt(url: string) {
  const ui = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as Record<string, any>;
  };
  const messages = async (): Promise<Message[]> => ((await (await fetch(`${url}/ui/state?user=U0ALICE`)).json()) as { messages: Message[] }).messages;
  const thread = async (ts: string) => (await messages()).filter((m) => m.ts === ts || m.thread_ts === ts);
  const shown = (m: Message) => `${m.text ?? ''}\n${JSON.stringify(m.blocks ?? [])}`;
  const until = async <T>(what: string, find: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await find();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`sandbox: no ${what} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  return {
    /** Asks the bot in #general as `user`; resolves with the thread's ts. */
    async ask(user: string, text: string): Promise<string> {
      const posted = await ui('/ui/message', { user, channel: 'C0GENERAL', text: `@approvals ${text}` });
      expect(posted.ok, JSON.stringify(posted)).toBe(true);
      return String(posted.ts);
    },
    /** The bot's approval card in the thread, once posted. */
    card: (ts: string) =>
      until('approval card', async () => (await thread(ts)).find((m) => m.bot_id && m.blocks?.some((b) => b.block_id?.startsWith('approval:')))),
    /** The bot's message in the thread whose text (or blocks) holds `needle`. */
    said: (ts: string, needle: string) => until(`"${needle}"`, async () => (await thread(ts)).find((m) => m.bot_id && shown(m).includes(needle))).then(shown),
    async click(user: string, card: Message, actionId: string) {
      const block = card.blocks!.find((b) => b.block_id?.startsWith('approval:'))!;
      expect((await ui('/ui/action', { user, channel: card.channel, messageTs: card.ts, blockId: block.block_id, actionId })).ok).toBe(true);
    },
  };
}

let providers: FakeProviders;
const started: NpmStart[] = [];
beforeAll(async () => {
  providers = await startFakeProviders(script);
  // What a clone holds: the tracked files (and new ones not ignored), as they are now.
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  for (const file of stdout.split('\0').filter(Boolean)) {
    mkdirSync(dirname(join(CLONE, file)), { recursive: true });
    try {
      cpSync(join(ROOT, file), join(CLONE, file));
    } catch (error) {
      // A tracked file deleted in the working tree is not in a clone of it either.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  // `prepare` builds the package as in any clone, incrementally from this working tree's build
  // (dist/ with tsc's build info, current as ensureBuiltPackage leaves it): the same command and
  // output, without compiling every file a second time.
  await ensureBuiltPackage();
  cpSync(join(ROOT, 'dist'), join(CLONE, 'dist'), { recursive: true });
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: CLONE, timeout: 600_000 });
  expect(existsSync(join(CLONE, 'dist/src/main.js')) && existsSync(join(CLONE, 'dist/cjs/index.cjs'))).toBe(true);

  // The team's own project beside the clone: zod, and the clone as its slack-approval-bot. The
  // clone is built (its own install's prepare, just above): linking it would run its prepare again.
  mkdirSync(TEAM);
  writeFileSync(join(TEAM, 'package.json'), JSON.stringify({ name: 'support-agents', version: '1.0.0', private: true }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', 'zod@4', `../slack-approval-bot`], { cwd: TEAM, timeout: 300_000 });
  writeFileSync(join(TEAM, 'agents.ts'), readmeSnippets().get('agents-module')!);
}, 900_000);
const databases: BotDatabase[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => stopProcessGroup(s.child)));
  await Promise.all(databases.map((d) => d.drop()));
  await providers?.close();
  rmSync(work, { recursive: true, force: true });
});

/** `npm start` in the clone with `env` (nothing of this test's own environment's model or Slack settings). */
async function start(env: Record<string, string | undefined>) {
  const clean = { MODEL: undefined, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, SLACK_BOT_TOKEN: undefined, SLACK_SIGNING_SECRET: undefined, SLACK_APP_TOKEN: undefined, DATABASE_URL: undefined, DATA_DIR: undefined, AGENTS_MODULE: undefined, MCP_SERVERS: undefined, POLICY_FILE: undefined };
  const app = await npmStart({ ...clean, PORT: '0', ...env }, CLONE);
  started.push(app);
  return { app, sandbox: sandboxAt(app.url) };
}

/** A database of its own for one start (see bot-database.ts). */
async function databaseEnv(name: string): Promise<Record<string, string>> {
  const database = await botDatabase(join(work, name));
  databases.push(database);
  return database.env;
}

// The three starts side by side: each is a process of its own on a port and data directory of its own.
describe.concurrent('from a fresh clone: npm install, then the README as written', { timeout: 300_000 }, () => {
  it('quick start with MODEL=openai-compatible/…: mention → card → Approve → the model’s answer', async () => {
    const { app, sandbox } = await start({ MODEL: 'openai-compatible/llama-3.3-70b', OPENAI_COMPATIBLE_BASE_URL: providers.compatibleBaseUrl, OPENAI_COMPATIBLE_API_KEY: providers.keys.compatible });
    const thread = await sandbox.ask('U0ALICE', 'delete record abc-123');
    const card = await sandbox.card(thread);
    // The requester may approve her own deletion (the demo policy), after the confirm the page shows.
    await sandbox.click('U0ALICE', card, 'approval.approve');
    expect(await sandbox.said(thread, 'The tool said:')).toMatch(/\\?"deleted\\?":true/);
    expect(providers.requests.filter((r) => r.api === 'openai-compatible')[0]!.tools).toEqual(expect.arrayContaining(['delete_record', 'agent-billing']));
    expect(providers.refused).toEqual([]);
    // The state lives in the clone's own .data/, as the README says.
    expect(app.output()).toContain('"database":"pglite"');
  });

  it('MCP tools: MCP_SERVERS=mcp.yaml npm start, no key: help lists the server’s tools, one called by name runs behind its card', async () => {
    writeFileSync(join(CLONE, 'mcp.yaml'), ['mcpServers:', '  runbooks:', '    command: node', '    args: [--import, tsx, examples/mcp-server.ts]', ''].join('\n'));
    const { app, sandbox } = await start({ MCP_SERVERS: 'mcp.yaml', ...(await databaseEnv('mcp-data')) });
    // The bot waits 10 s for a server's first answer, then serves without its tools until it comes
    // (they join the help then): on a busy machine a cold `node --import tsx` server can take longer.
    await app.printed('MCP server connected');
    const help = await sandbox.ask('U0ALICE', 'help');
    expect(await sandbox.said(help, 'runbooks__search_runbooks')).toContain('runbooks__page_oncall');
    const thread = await sandbox.ask('U0ALICE', 'call runbooks__search_runbooks with {"query": "printer"}');
    const card = await sandbox.card(thread);
    await sandbox.click('U0BOB', card, 'approval.approve');
    expect(await sandbox.said(thread, 'Printer offline')).toContain('Power-cycle the printer');
  });

  it('Your own agents: the README’s module in a project beside the clone, AGENTS_MODULE=../support-agents/agents.ts npm start', async () => {
    const { app, sandbox } = await start({ AGENTS_MODULE: '../support-agents/agents.ts', OPENAI_API_KEY: providers.keys.openai, OPENAI_BASE_URL: providers.openaiBaseUrl, ...(await databaseEnv('team-data')) });
    expect(app.output()).toContain('"source":"../support-agents/agents.ts (export policy)"');
    const thread = await sandbox.ask('U0ALICE', 'close ticket 7');
    const card = await sandbox.card(thread);
    expect(JSON.stringify(card.blocks)).toMatch(/Close ticket/i);
    expect(providers.requests.filter((r) => r.api === 'openai-responses').at(-1)!.tools).toEqual(['close_ticket']);
    expect(providers.refused).toEqual([]);
  });
});
