/**
 * `npm start` as a person runs it, for the tests that take the whole product as it ships:
 * started in a process group of its own so that stopping it stops npm, tsx and the bot alike.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { watchProcess } from '../watch-process.js';

export interface NpmStart {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves once the output holds `text` (a log line the test needs to have happened first); fails after `timeoutMs`. */
  printed(text: string, timeoutMs?: number): Promise<void>;
  /** How it ended, once it has. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `npm start` with this environment on top of the test's (a variable given as undefined is
 * removed, e.g. MODEL, so the tests' own settings cannot leak in), in `cwd` (default: this
 * repository); resolves with the sandbox URL it prints. `PORT: '0'` lets the sandbox take a free
 * port itself: a port found free beforehand can be taken by another socket before the child listens.
 */
export async function npmStart(env: Record<string, string | undefined>, cwd?: string): Promise<NpmStart> {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  const child = spawn('npm', ['start'], { env: merged, detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const watched = watchProcess(child, { stderr: true });
  /** The first thing `find` returns for the output, failing with the output if the process exits first or `timeoutMs` passes. */
  const within = <T>(what: string, timeoutMs: number, find: (output: string) => T | undefined): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`npm start printed no ${what} within ${timeoutMs} ms:\n${watched.output()}`)), timeoutMs);
    });
    return Promise.race([watched.waitFor(find), late]).finally(() => clearTimeout(timer));
  };
  const url = await within('URL', 90_000, (output) => /open (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]);
  const printed = (text: string, timeoutMs = 60_000) => within(JSON.stringify(text), timeoutMs, (output) => (output.includes(text) ? true : undefined)).then(() => undefined);
  return { child, url, output: watched.output, printed, exited };
}

/** SIGTERM to npm and everything it started, as a terminal's Ctrl-C or a supervisor would; resolves once npm has exited. */
export async function stopProcessGroup(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
  await exited;
}
