import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../logger.js';

/**
 * Bolt and the WebClient log through this, so their lines (bad signatures,
 * retries, rate limits) land in the same pino stream, with its redaction.
 */
export function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ component: 'bolt' });
  let level = LogLevel.INFO;
  const text = (parts: unknown[]) => parts.map((p) => (typeof p === 'string' ? p : safeJson(p))).join(' ');
  return {
    debug: (...parts: unknown[]) => log.debug(text(parts)),
    info: (...parts: unknown[]) => log.info(text(parts)),
    warn: (...parts: unknown[]) => log.warn(text(parts)),
    error: (...parts: unknown[]) => log.error(text(parts)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

function safeJson(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
