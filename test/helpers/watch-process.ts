import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

interface WatchedProcess {
  /** Its exit code, once it has exited. */
  exited: Promise<number | null>;
  /** All it has printed so far. */
  output(): string;
  /**
   * Resolves with the first thing `find` returns for the output so far, checked as each chunk
   * arrives (so a test can act at that very point of start-up); rejects with the output if the
   * process exits first.
   */
  waitFor<T>(find: (output: string) => T | undefined): Promise<T>;
}

/** Collects a spawned process's stdout (and stderr, with `stderr: true`) for a test to wait on and assert. */
export function watchProcess(child: ChildProcessByStdio<null, Readable, Readable>, options: { stderr?: boolean } = {}): WatchedProcess {
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let output = '';
  const waiters = new Set<() => void>();
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  child.stdout.on('data', take);
  if (options.stderr) child.stderr.on('data', take);
  return {
    exited,
    output: () => output,
    waitFor: <T>(find: (output: string) => T | undefined) =>
      new Promise<T>((done, fail) => {
        const check = () => {
          const found = find(output);
          if (found === undefined) return;
          waiters.delete(check);
          done(found);
        };
        waiters.add(check);
        check();
        void exited.then((code) => {
          if (!waiters.delete(check)) return;
          fail(new Error(`exited with ${code}: ${output}`));
        });
      }),
  };
}
