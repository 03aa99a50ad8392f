/**
 * Request/response and events over a child process's IPC channel, for benches that keep the
 * code under test in a process of its own (so the bench's clock and its fakes do not share
 * its event loop). The child is `node --import tsx <script>`; it calls serveRpc().
 */
import { spawn, type ChildProcess } from 'node:child_process';

type Message =
  | { id: number; method: string; args: unknown }
  | { id: number; result: unknown }
  | { id: number; error: string }
  | { event: string; payload: unknown };

type Handlers = Record<string, (args: any) => unknown>;

/** Child side: answers the parent's calls; `emit` sends events. The process exits once the parent lets go. */
export function serveRpc(handlers: Handlers): { emit(event: string, payload: unknown): void } {
  const send = (m: Message) => process.send?.(m);
  process.on('message', (m: Message) => {
    if (!('method' in m)) return;
    const handler = handlers[m.method];
    void (async () => {
      try {
        if (!handler) throw new Error(`no method ${m.method}`);
        send({ id: m.id, result: (await handler(m.args)) ?? null });
      } catch (error) {
        send({ id: m.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
    })();
  });
  // Without a parent there is nobody to report to: stop at once (the parent drops the schema).
  process.on('disconnect', () => process.exit(0));
  send({ event: 'ready', payload: null });
  return { emit: (event, payload) => send({ event, payload }) };
}

/** Parent side. */
export class ChildRpc {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; method: string }>();
  private readonly listeners = new Map<string, (payload: any) => void>();
  private exitCode: number | null | undefined;
  readonly exited: Promise<void>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    child.on('message', (m: Message) => {
      if ('event' in m) {
        this.listeners.get(m.event)?.(m.payload);
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if ('error' in m) p.reject(new Error(`${name}.${p.method} failed in the child:\n${m.error}`));
      else if ('result' in m) p.resolve(m.result);
    });
    this.exited = new Promise<void>((resolve) => {
      child.on('exit', (code, signal) => {
        this.exitCode = code;
        for (const p of this.pending.values()) p.reject(new Error(`${name} exited (${signal ?? code}) during ${p.method}`));
        this.pending.clear();
        resolve();
      });
    });
  }

  /**
   * Starts `node --import tsx <script>` and waits until it serves. BENCH_CHILD_NODE_ARGS adds
   * node flags, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the children.
   */
  static async spawn(name: string, script: string, options: { cwd: string; env?: Record<string, string> }): Promise<ChildRpc> {
    const extra = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...extra, '--import', 'tsx', script], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const rpc = new ChildRpc(name, child);
    await new Promise<void>((resolve, reject) => {
      rpc.listeners.set('ready', () => resolve());
      child.once('error', reject);
      void rpc.exited.then(() => reject(new Error(`${name} exited (${rpc.exitCode}) before it was ready`)));
    });
    return rpc;
  }

  on(event: string, listener: (payload: any) => void): void {
    this.listeners.set(event, listener);
  }

  call<T = unknown>(method: string, args: unknown = null): Promise<T> {
    if (this.exitCode !== undefined || !this.child.connected) return Promise.reject(new Error(`${this.name} is gone; cannot call ${method}`));
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method });
      this.child.send({ id, method, args } satisfies Message);
    });
  }

  /** Lets the child go (it exits when its IPC channel closes); kills it if it has not exited after `graceMs`. */
  async close(graceMs = 5_000): Promise<void> {
    if (this.exitCode !== undefined) return;
    if (this.child.connected) this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * Runs a child that measures on its own and prints one `<tag> {json}` line on stdout (the heap
 * measurement, Mastra's cycles): its result, or an error with what it printed.
 */
export async function childResult<T>(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }, tag: string): Promise<T> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  const line = stdout.split('\n').find((l) => l.startsWith(`${tag} `));
  if (code !== 0 || !line) throw new Error(`${tag} child exited with ${code}: ${stdout.trim()}`);
  return JSON.parse(line.slice(tag.length + 1)) as T;
}
