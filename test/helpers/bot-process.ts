/**
 * The bot as a person starts it (`npm start`, `npm run start:prod`, a team's own npm script),
 * in a process group of its own, with nothing of the test's environment but PATH and HOME and
 * what the test gives; its JSON log lines are kept for the test to wait on. For the Slack front
 * end, startSlackBotProcess points it at the Slack simulator in HTTP mode and sends it signed
 * requests, as Slack would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { FAKE_BOT_TOKEN, slackSender, type SlackSimulator } from '../../src/simulator/index.js';
import type { Bot } from './slack-bot.js';

const ROOT = resolve(import.meta.dirname, '../..');

export type LogLine = { level?: number; msg?: string; [key: string]: unknown };

export interface BotProcess {
  child: ChildProcess;
  /** All it printed, stdout and stderr. */
  output(): string;
  /** Its JSON log lines so far. */
  logs(): LogLine[];
  /** The first log line matching, as it arrives; rejects with the output if the process exits first or the time runs out. */
  waitForLog(match: RegExp | ((line: LogLine) => boolean), timeoutMs?: number): Promise<LogLine>;
  /** How it ended, once it has. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to the whole group (npm and the bot alike), as a terminal or a supervisor sends it; resolves once it has exited. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

interface StartOptions {
  /** The command and its arguments, e.g. `['npm', 'start']`. */
  command: string[];
  cwd: string;
  /** On top of PATH and HOME (a value given as undefined removes the variable). */
  env: Record<string, string | undefined>;
}

/** Every process started and not yet stopped: stopAllBotProcesses ends them (an afterEach). */
const started = new Set<BotProcess>();

export function startBotProcess(options: StartOptions): BotProcess {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_FORMAT: 'json', LOG_LEVEL: 'info', PORT: '0' };
  for (const [name, value] of Object.entries(options.env)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  // Not this repository's node_modules/.bin, which the test runner puts on PATH: a person's shell has none of it.
  env.PATH = (env.PATH ?? '').split(':').filter((dir) => !dir.startsWith(join(ROOT, 'node_modules'))).join(':');
  const [command, ...args] = options.command;
  const child = spawn(command!, args, { cwd: options.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const parsed: LogLine[] = [];
  let partial = '';
  const wakers = new Set<() => void>();
  const take = (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        parsed.push(JSON.parse(line) as LogLine);
      } catch {
        // Not a log line (a JSON-looking line something else printed).
      }
    }
    for (const wake of wakers) wake();
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let ended = false;
  void exited.then(() => {
    ended = true;
    started.delete(handle);
    for (const wake of wakers) wake();
  });

  const handle: BotProcess = {
    child,
    output: () => output,
    logs: () => parsed,
    waitForLog(match, timeoutMs = 90_000) {
      const test = typeof match === 'function' ? match : (line: LogLine) => match.test(String(line.msg ?? ''));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`timed out waiting for a log line matching ${String(match)}; output:\n${output}`)), timeoutMs);
        const check = () => {
          const found = parsed.find(test);
          if (found) done(undefined, found);
          else if (ended) done(new Error(`exited before a log line matching ${String(match)}; output:\n${output}`));
        };
        const done = (error: Error | undefined, line?: LogLine) => {
          clearTimeout(timer);
          wakers.delete(check);
          if (error) reject(error);
          else resolve(line!);
        };
        wakers.add(check);
        check();
      });
    },
    exited,
    async stop() {
      if (!ended && child.pid) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
        }
      }
      return exited;
    },
  };
  started.add(handle);
  return handle;
}

/** Stops every bot process a test left running. */
export async function stopAllBotProcesses(): Promise<void> {
  await Promise.all([...started].map((p) => p.stop()));
}

const SLACK_SIGNING_SECRET = 'bot-process-signing-secret-7c1d';

/**
 * The bot behind the Slack simulator in HTTP mode: started with the simulator's Web API URL,
 * its token and a signing secret, resolved once its HTTP port is up, with a `bot` for the Slack
 * helpers (mention, clickButton, …) that sends it signed requests.
 */
export async function startSlackBotProcess(fake: SlackSimulator, options: StartOptions): Promise<{ process: BotProcess; bot: Bot; url: string }> {
  const bot = startBotProcess({
    ...options,
    env: { SLACK_BOT_TOKEN: FAKE_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_API_URL: fake.apiUrl, ...options.env },
  });
  const up = await bot.waitForLog(/^Slack app started$/);
  const url = `http://127.0.0.1:${String(up.port)}`;
  return { process: bot, url, bot: { send: slackSender(`${url}/slack/events`, SLACK_SIGNING_SECRET), fake } as unknown as Bot };
}
