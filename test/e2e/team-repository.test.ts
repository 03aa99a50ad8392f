/**
 * A team's agents in their own repository, exactly as README "Your own agents" says: the bot
 * packed (`npm pack`, what a git dependency's `prepare` also produces) and installed with zod into
 * a fresh `npm init -y` project in a temporary directory outside this repository (CommonJS, as
 * npm makes it), `"start": "slack-approval-bot"` in its scripts, and the team's module in it:
 * the README's own TypeScript module, a CommonJS one using require(), an ES module in JavaScript
 * and one in TypeScript. Each starts with `npm start` in the team's repository, and from this
 * repository with `npm run start:prod` and `npm start` pointing AGENTS_MODULE outside it; a
 * module whose packages are not installed, or TypeScript without tsx, stops start-up saying what
 * to install. The README module runs a whole approval over the Slack simulator, its model
 * (`openai/gpt-5-mini`, a string) given the configured OpenAI settings.
 *
 * The install needs only the npm registry (or its cache: `--prefer-offline`). One pack and one
 * install serve every case. Node 20 runs here; TEAM_REPO_NODE_VERSIONS=22,24 also runs under
 * those versions what the README promises on them, the module forms from the team's `npm start`
 * (their binaries installed from the npm packages node@22 and node@24 into
 * ~/.cache/slack-approval-bot once, then reused from there). The README's start runs on the
 * embedded database in the team's default data directory (.data/), which an earlier start left
 * migrated (a first start's initdb on an empty one is fresh-clone's quick start); the module forms
 * are about the module, not the embedded database, so each starts on a database of its own on
 * PostgreSQL when DATABASE_URL is set, else on a DATA_DIR as an earlier start left it
 * (bot-database.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { startSlackSimulator, type SlackSimulator } from '../../src/simulator/index.js';
import { startBotProcess, startSlackBotProcess, stopAllBotProcesses, type BotProcess } from '../helpers/bot-process.js';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase } from '../helpers/bot-database.js';
import { migratedDataDir } from '../helpers/migrated-data-dir.js';
import { startFakeProviders, type FakeProviders, type Reply, type Turn } from '../helpers/fake-providers.js';
import { readmeSnippets } from '../helpers/readme-snippets.js';
import { clickButton, mention, textOf, waitForCard, waitForText, waitForUpdate } from '../helpers/slack-bot.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const work = tempDir('team-repository-');
const TEAM = join(work, 'support-agents');
const BARE = join(work, 'nothing-installed');
const REQUESTER = 'U0REQUESTER';
const LEAD = 'U0ALICE';
const CHANNEL = 'C0CHANNEL01';
/** Where the Node binaries of TEAM_REPO_NODE_VERSIONS are kept between runs. */
const NODES_CACHE = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'slack-approval-bot/team-repository-nodes');
const extraNodes = (process.env.TEAM_REPO_NODE_VERSIONS ?? '').split(',').map((v) => v.trim()).filter(Boolean);

/** The tool both modules below define, in plain JavaScript. */
const CLOSE_TICKET = `const closeTicket = createTool({
  id: 'close_ticket',
  description: 'Close a ticket. A person approves each close first.',
  inputSchema: z.object({ id: z.number().int().positive() }),
  requireApproval: true,
  execute: async ({ id }) => ({ id, status: 'closed' }),
});
`;

/** The CommonJS way, in a project made by `npm init -y`. */
const COMMONJS_MODULE = `const { z } = require('zod');
const { Agent, createTool, definePolicy } = require('slack-approval-bot');

${CLOSE_TICKET}
module.exports = {
  agent: new Agent({ id: 'support-cjs', model: 'openai/gpt-5-mini', tools: { close_ticket: closeTicket } }),
  policy: definePolicy({ version: 'cjs', tools: { close_ticket: { requireApproval: true, approvers: ['U0ALICE'] } } }),
};
`;

/** An ES module in JavaScript, in a folder whose package.json says `"type": "module"`. */
const ESM_MODULE = `import { z } from 'zod';
import { Agent, createTool, definePolicy } from 'slack-approval-bot';

${CLOSE_TICKET}
export const agent = new Agent({ id: 'support-esm', model: 'openai/gpt-5-mini', tools: { close_ticket: closeTicket } });
export const policy = definePolicy({ version: 'esm-js', tools: { close_ticket: { requireApproval: true } } });
`;

/** The model: "close ticket N" is close_ticket's call; its result, said back. */
function script(turns: Turn[]): Reply {
  const last = turns.at(-1);
  if (last?.role === 'tool') {
    const result = JSON.parse(last.output) as { id: number; status: string };
    return { text: `Ticket ${result.id} is ${result.status}.` };
  }
  const ticket = last?.role === 'user' ? /close ticket (\d+)/.exec(last.text) : null;
  return ticket ? { toolCalls: [{ name: 'close_ticket', args: { id: Number(ticket[1]) } }] } : { text: 'Which ticket?' };
}

let providers: FakeProviders;
let fake: SlackSimulator;
/** PATH with the node of each version to check: this one's, and TEAM_REPO_NODE_VERSIONS' once installed. */
const nodePaths = new Map<string, string>([['this', process.env.PATH ?? '']]);

beforeAll(async () => {
  providers = await startFakeProviders(script);
  fake = await startSlackSimulator({ usergroups: { S0SUPPORTLEADS: [LEAD] } });
  await ensureBuiltPackage();
  // The package as npm ships it: what `files` lists (the build ran just above, as `prepare` runs it).
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, timeout: 120_000 });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed!.files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(['dist/src/main.js', 'dist/src/index.js', 'dist/cjs/index.cjs', 'migrations/001_runtime.sql', 'src/sandbox/public/index.html']));
  expect(files.filter((f) => f.startsWith('test/') || (f.startsWith('src/') && f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);

  mkdirSync(TEAM);
  await run('npm', ['init', '-y'], { cwd: TEAM });
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed!.filename), 'zod@4'], { cwd: TEAM, timeout: 300_000 });
  await run('npm', ['pkg', 'set', 'scripts.start=slack-approval-bot'], { cwd: TEAM });
  writeFileSync(join(TEAM, 'agents.ts'), readmeSnippets().get('agents-module')!);
  writeFileSync(join(TEAM, 'agents.cjs'), COMMONJS_MODULE);
  mkdirSync(join(TEAM, 'esm'));
  writeFileSync(join(TEAM, 'esm/package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(TEAM, 'esm/agents.js'), ESM_MODULE);
  writeFileSync(join(TEAM, 'esm/agents.ts'), readmeSnippets().get('agents-module')!);

  // A project with neither the bot nor zod installed.
  mkdirSync(BARE);
  writeFileSync(join(BARE, 'package.json'), JSON.stringify({ name: 'nothing-installed', type: 'module' }));
  writeFileSync(join(BARE, 'agents.mjs'), ESM_MODULE);
  writeFileSync(join(BARE, 'agent-only.mjs'), `import { Agent } from 'slack-approval-bot';\nexport default new Agent({ id: 'a', model: 'openai/gpt-5-mini' });\n`);

  for (const version of extraNodes) {
    // Installed once into a folder that outlives the run and the clone (the binaries are tens of MB
    // each); remove it to take the latest release of that major version.
    const dir = join(NODES_CACHE, `node-${version}`);
    const bin = join(dir, 'node_modules/.bin');
    if (!existsSync(join(bin, 'node'))) {
      const partial = `${dir}.${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      writeFileSync(join(partial, 'package.json'), JSON.stringify({ name: `node-${version}`, private: true }));
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `node@${version}`], { cwd: partial, timeout: 300_000 });
      rmSync(dir, { recursive: true, force: true });
      renameSync(partial, dir);
    }
    const { stdout: v } = await run(join(bin, 'node'), ['--version']);
    expect(v.trim()).toMatch(new RegExp(`^v${version}\\.`));
    nodePaths.set(version, `${bin}:${process.env.PATH ?? ''}`);
  }
}, 900_000);
afterAll(async () => {
  await stopAllBotProcesses();
  await providers?.close();
  await fake?.close();
  // The team's node_modules and the data directories: tens of seconds of disk work on a busy machine.
  await rm(work, { recursive: true, force: true });
}, 300_000);

const openai = () => ({ OPENAI_API_KEY: providers.keys.openai, OPENAI_BASE_URL: providers.openaiBaseUrl });
let dataDirs = 0;
const dataDir = () => join(work, `data-${++dataDirs}`);

/** A module form started from the team's repository, as README "Your own agents" starts it. */
const fromTeam = (module: string) => ({ what: module, cwd: TEAM, command: ['npm', 'start', '--silent'], module, source: `${module} (export policy)` });
/** On this Node: the forms from the team's npm start, and a module outside this repository from its start:prod and its start (tsx). */
const HERE = [
  fromTeam('agents.cjs'),
  fromTeam('esm/agents.js'),
  fromTeam('esm/agents.ts'),
  { what: 'start:prod, agents.ts', cwd: ROOT, command: ['npm', 'run', 'start:prod', '--silent'], module: join(TEAM, 'agents.ts'), source: `${join(TEAM, 'agents.ts')} (export policy)` },
  { what: 'start, agents.cjs', cwd: ROOT, command: ['npm', 'start', '--silent'], module: join(TEAM, 'agents.cjs'), source: `${join(TEAM, 'agents.cjs')} (export policy)` },
];
/**
 * On the other versions, what the README promises there: the module TypeScript or JavaScript, an
 * ES module or CommonJS, TypeScript in the CommonJS project npm init made among them.
 */
const ELSEWHERE = [fromTeam('agents.cjs'), fromTeam('esm/agents.js'), fromTeam('esm/agents.ts'), fromTeam('agents.ts')];

/** Stops `bot` when the test ends, passed or failed: the tests run side by side, each stopping its own. */
function stopAtEnd({ onTestFinished }: TestContext, bot: BotProcess): BotProcess {
  onTestFinished(async () => {
    await bot.stop();
  });
  return bot;
}

// Independent of each other (each its own bot processes and databases): side by side.
describe.concurrent('the team’s repository: the bot installed as a dependency, the team’s module beside it', { timeout: 300_000 }, () => {
  it('the policy checks in CI: npx slack-approval-policy test passes right cases, fails a wrong one, and explains a call', async () => {
    writeFileSync(join(TEAM, 'policy.yaml'), 'tools:\n  close_ticket:\n    requireApproval: true\n    approvers: [S0SUPPORTLEADS]\n    rules:\n      - { when: { arg: id, op: eq, value: 1 }, then: { deny: Ticket 1 stays open. } }\n');
    const cases = (expectFirst: string) =>
      `policy: policy.yaml\ncases:\n  - { name: leads close tickets, tool: close_ticket, args: { id: 7 }, requester: U0REQUESTER, expect: ${expectFirst} }\n  - { name: ticket 1 stays open, tool: close_ticket, args: { id: 1 }, requester: U0REQUESTER, expect: { denied: Ticket 1 stays open. } }\n`;
    writeFileSync(join(TEAM, 'policy-cases.yaml'), cases('{ asks: { approvers: [S0SUPPORTLEADS] } }'));
    writeFileSync(join(TEAM, 'wrong-cases.yaml'), cases('runs'));
    const npx = (args: string[]) => run('npx', ['--no-install', 'slack-approval-policy', ...args], { cwd: TEAM, timeout: 60_000 });
    // Three runs of the command, side by side.
    const [passed, wrong, explained] = await Promise.all([
      npx(['test', 'policy-cases.yaml']),
      npx(['test', 'wrong-cases.yaml']).then(() => undefined, (error: unknown) => error),
      npx(['explain', '--tool', 'close_ticket', '--args', '{"id":1}', '--as', 'U0REQUESTER', '--policy', 'policy.yaml']),
    ]);
    expect(passed.stdout).toMatch(/\n2 passed, 0 failed\n$/);
    expect(wrong).toMatchObject({ code: 1, stdout: expect.stringMatching(/FAIL +1 +leads close tickets +runs +asks 1 of \[S0SUPPORTLEADS\]/) });
    expect(explained.stdout).toContain('Verdict:  denied by tools.close_ticket.rules[0]: "Ticket 1 stays open."');
  });

  it('README "Your own agents" as written, TypeScript in an npm init project: npm start → mention → card → Approve by a support lead → answer', async (context) => {
    await migratedDataDir(join(TEAM, '.data'));
    const { process: bot, bot: slack } = await startSlackBotProcess(fake, { command: ['npm', 'start', '--silent'], cwd: TEAM, env: { AGENTS_MODULE: 'agents.ts', ...openai() } });
    stopAtEnd(context, bot);
    // The embedded database, loaded from the team's node_modules, in the team's .data/.
    expect(await bot.waitForLog(/^database ready$/)).toMatchObject({ database: 'pglite', applied: [] });
    expect(await bot.waitForLog(/^policy loaded$/)).toMatchObject({ source: 'agents.ts (export policy)' });
    expect((await bot.waitForLog(/^model selected$/)).model).toBe('openai.responses/gpt-5-mini');
    const thread = await mention(slack, { user: REQUESTER, channel: CHANNEL, text: 'close ticket 7' });
    const card = await waitForCard(fake, thread, 'approval');
    expect(textOf(card.call)).toMatch(/close.ticket/i);
    await clickButton(slack, card, LEAD, ACTION_IDS.approve);
    await waitForUpdate(fake, card, `Approved by <@${LEAD}>`);
    await waitForText(fake, thread, 'Ticket 7 is closed.');
    expect(providers.refused).toEqual([]);
  });

  for (const version of ['this', ...extraNodes]) {
    const name =
      version === 'this'
        ? `on Node ${process.versions.node}: CommonJS with require(), ES modules in JavaScript and TypeScript, from the team's npm start and this repository's start:prod and start`
        : `on Node ${version}: CommonJS with require(), ES modules in JavaScript and TypeScript, TypeScript in the CommonJS project, from the team's npm start`;
    it(name, async (context) => {
      const forms = version === 'this' ? HERE : ELSEWHERE;
      const databases = await Promise.all(forms.map(() => botDatabase(dataDir())));
      const starts: Array<{ what: string; bot: BotProcess; source: string }> = forms.map((s, i) => ({
        what: s.what,
        source: s.source,
        bot: stopAtEnd(context, startBotProcess({ command: s.command, cwd: s.cwd, env: { PATH: nodePaths.get(version), AGENTS_MODULE: s.module, ...databases[i]!.env, ...openai() } })),
      }));
      for (const { what, bot, source } of starts) {
        const selected = await bot.waitForLog(/^model selected$/).catch((error: Error) => {
          throw new Error(`${what}: ${error.message}`);
        });
        expect(selected.model, what).toBe('openai.responses/gpt-5-mini');
        expect(bot.logs().find((l) => l.msg === 'policy loaded'), what).toMatchObject({ source });
      }
      await Promise.all(starts.map(({ bot }) => bot.stop()));
      for (const { what, bot } of starts) expect(bot.logs().filter((l) => (l.level ?? 0) >= 50), what).toEqual([]);
      await Promise.all(databases.map((d) => d.drop()));
    });
  }
});

// After the others: it moves the team's tsx away for a moment, which their TypeScript modules load through.
describe('the team’s repository with something missing', { timeout: 300_000 }, () => {
  it('what is missing is named with what to install: zod, the bot itself, tsx for a TypeScript module', async () => {
    const prod = (module: string, cwd = ROOT, command = ['npm', 'run', 'start:prod', '--silent']) => startBotProcess({ command, cwd, env: { AGENTS_MODULE: module, DATA_DIR: dataDir(), ...openai() } });
    const fatal = async (bot: BotProcess) => {
      expect((await bot.exited).code).toBe(1);
      return String(bot.logs().find((l) => l.level === 60)?.msg);
    };
    // tsx comes with the bot; without it, a TypeScript module cannot be loaded by plain node. (The
    // other two start from this repository, whose tsx stays where it is: the three run side by side.)
    const tsx = join(TEAM, 'node_modules/tsx');
    renameSync(tsx, `${tsx}-away`);
    try {
      const [zod, itself, typescript] = await Promise.all([prod(join(BARE, 'agents.mjs')), prod(join(BARE, 'agent-only.mjs')), prod('agents.ts', TEAM, ['npm', 'start', '--silent'])].map(fatal));
      expect(zod).toBe(`AGENTS_MODULE ${join(BARE, 'agents.mjs')}: could not be loaded: it imports "zod", which is not installed in ${BARE}: run \`npm install zod\` there`);
      expect(itself).toContain(`it imports "slack-approval-bot", which is not installed in ${BARE}: add the bot to that project as a dependency`);
      expect(typescript).toContain('AGENTS_MODULE agents.ts: is TypeScript, which plain node loads only through tsx, and tsx could not be loaded: run `npm install tsx`');
    } finally {
      renameSync(`${tsx}-away`, tsx);
    }
    expect(readdirSync(join(TEAM, 'node_modules'))).toContain('tsx');
  });
});
