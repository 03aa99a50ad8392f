import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { drainOnSignals, type Drainable } from '../../src/drain-on-signals.js';
import { captureLogger } from '../helpers/slack-bot.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A process whose signals the test sends and whose exits it records. */
function fakeProcess() {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  return { emitter, exits, proc: Object.assign(emitter, { exit: (code: number) => void exits.push(code) }) };
}

/** A bot whose stop takes until `finish` is called. */
function slowBot() {
  let finish!: () => void;
  const stopped = new Promise<void>((resolve) => (finish = resolve));
  const calls = { markStopping: 0, stop: 0, closeDatabase: 0 };
  const bot: Drainable = {
    readiness: { markStopping: () => void calls.markStopping++ },
    stop: () => (calls.stop++, stopped),
    closeDatabase: async () => void calls.closeDatabase++,
  };
  return { bot, calls, finish };
}

describe('drainOnSignals', () => {
  it('SIGTERM: readiness fails, the bot stops, exit 0 once it has', async () => {
    const { proc, emitter, exits } = fakeProcess();
    const { logger, logs } = captureLogger();
    const { bot, calls, finish } = slowBot();
    drainOnSignals({ logger, timeoutMs: 5_000, process: proc }).attach(bot);
    emitter.emit('SIGTERM');
    expect(calls).toMatchObject({ markStopping: 1, stop: 1 });
    await sleep(20);
    expect(exits).toEqual([]);
    finish();
    await vi.waitFor(() => expect(exits).toEqual([0]), { timeout: 5_000, interval: 5 });
    expect(logs.join('\n')).toMatch(/"msg":"stopped"/);
  });

  it('one Ctrl-C delivered twice (terminal and npm) drains once; a later Ctrl-C exits 1 at once', async () => {
    const { proc, emitter, exits } = fakeProcess();
    const { logger, logs } = captureLogger();
    const { bot, calls } = slowBot();
    drainOnSignals({ logger, timeoutMs: 60_000, process: proc }).attach(bot);
    emitter.emit('SIGINT');
    await sleep(20);
    emitter.emit('SIGINT');
    expect(exits).toEqual([]);
    expect(calls.stop).toBe(1);
    await sleep(600);
    emitter.emit('SIGINT');
    expect(exits).toEqual([1]);
    expect(logs.join('\n')).toContain('second signal');
  });

  it('past the timeout: the claims still held are handed over, the database closed, exit 1 with a log line', async () => {
    const { proc, emitter, exits } = fakeProcess();
    const { logger, logs } = captureLogger();
    const { bot, calls } = slowBot();
    drainOnSignals({ logger, timeoutMs: 100, process: proc }).attach(bot);
    emitter.emit('SIGTERM');
    await vi.waitFor(
      () => {
        expect(exits).toEqual([1]);
        expect(calls.closeDatabase).toBe(1);
        expect(logs.join('\n')).toMatch(/"timeoutMs":100,"handedOver":\[\],"msg":"shutdown timed out/);
      },
      { timeout: 5_000, interval: 10 },
    );
  });

  it('a signal during start-up stops the bot as soon as it is attached', async () => {
    const { proc, emitter, exits } = fakeProcess();
    const { logger } = captureLogger();
    const { bot, calls, finish } = slowBot();
    const signals = drainOnSignals({ logger, timeoutMs: 5_000, process: proc });
    emitter.emit('SIGTERM');
    expect(exits).toEqual([]);
    signals.attach(bot);
    expect(calls.stop).toBe(1);
    finish();
    await vi.waitFor(() => expect(exits).toEqual([0]), { timeout: 5_000, interval: 5 });
  });
});
