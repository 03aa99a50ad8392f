import type { Logger } from './logger.js';

/** A started bot, as the signal handlers see it. */
export interface Drainable {
  readiness: { markStopping(): void };
  /** Stops taking requests, waits for acknowledged work to reach a durable point, closes the database. */
  stop(): Promise<void>;
  /** For a stop out of time: closes the database under the work still running, so PGlite is shut down cleanly and PostgreSQL connections end. */
  closeDatabase(): Promise<void>;
}

/** Copies of one signal (see onSignal) arrive well within this. */
const SAME_SIGNAL_MS = 500;

interface DrainOptions {
  logger: Logger;
  /** SHUTDOWN_TIMEOUT_MS. */
  timeoutMs: number;
  /** Where the signals arrive and how the process ends; the process itself, except in tests. */
  process?: Pick<NodeJS.EventEmitter, 'on'> & { exit(code: number): void };
}

/**
 * SIGTERM and SIGINT: readiness fails, the bot stops taking requests and lets the work in flight
 * reach a durable point, and the process exits 0. Past `timeoutMs` the runs this process still holds
 * are handed over to the other instances (they take them over from their last record at their next
 * sweep, as after a crash, without waiting out RUN_LEASE_MS), and it exits 1 saying so. A second
 * SIGINT exits at once. Installed before start-up, so a signal during start-up is acted on as soon
 * as the bot is up (`attach`) instead of killing it half open.
 */
export function drainOnSignals(options: DrainOptions): { attach(bot: Drainable): void } {
  const { logger, timeoutMs } = options;
  const proc = options.process ?? process;
  let bot: Drainable | undefined;
  let pending: string | undefined;
  let stopping = false;

  const drain = (running: Drainable, signal: string) => {
    stopping = true;
    running.readiness.markStopping();
    // No new requests from here; the work in flight is finished (see above).
    logger.info({ timeoutMs, signal }, 'shutting down');
    const deadline = setTimeout(() => {
      void (async () => {
        // Imported here, not at the top: main.ts installs these handlers before it checks the
        // configuration, and a refused start should not load the database code (kysely) for nothing.
        const handedOver = await import('./agent/held-leases.js').then(({ handOverHeldLeases }) => handOverHeldLeases()).catch(() => [] as string[]);
        logger.error({ timeoutMs, handedOver }, 'shutdown timed out (SHUTDOWN_TIMEOUT_MS); work still in flight was handed over to other instances');
        await Promise.race([running.closeDatabase().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2_000))]);
        proc.exit(1);
      })();
    }, timeoutMs);
    running.stop().then(
      () => {
        clearTimeout(deadline);
        logger.info({ signal }, 'stopped');
        proc.exit(0);
      },
      (error: unknown) => {
        clearTimeout(deadline);
        logger.error({ err: error }, 'error while shutting down');
        proc.exit(1);
      },
    );
  };

  let firstAt = 0;
  const onSignal = (signal: string) => {
    if (stopping || pending) {
      // A second Ctrl-C: the person at the terminal does not want to wait. Under `npm start` one
      // Ctrl-C arrives twice at once (the terminal signals the whole process group, and npm passes
      // its copy on), so only one that comes later counts.
      if (signal === 'SIGINT' && performance.now() - firstAt > SAME_SIGNAL_MS) {
        logger.warn({ signal }, 'second signal: exiting without waiting for work in flight');
        proc.exit(1);
      }
      return;
    }
    firstAt = performance.now();
    if (bot) return drain(bot, signal);
    pending = signal;
    logger.info({ signal }, 'signal during start-up: stopping as soon as start-up is done');
  };
  proc.on('SIGTERM', () => onSignal('SIGTERM'));
  proc.on('SIGINT', () => onSignal('SIGINT'));

  return {
    attach(running) {
      bot = running;
      if (pending) drain(running, pending);
    },
  };
}
