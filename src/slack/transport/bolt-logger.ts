import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../logger.js';

/**
 * Bolt and the WebClient log through this, so their lines (bad signatures,
 * retries, rate limits) land in the same pino stream, with its redaction.
 */
export function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ component: 'bolt' });
  let level = LogLevel.INFO;
  const text = (parts: unknown[]) => parts.map((p) => (typeof p === 'string' ? p : safeJson(p))).join(' ');
  // Bolt and the WebClient log debug lines on every request and call; formatting them only to drop them cost time on each ack.
  const at = (pinoLevel: 'debug' | 'info' | 'warn' | 'error') => (...parts: unknown[]) => {
    if (log.isLevelEnabled(pinoLevel)) log[pinoLevel](text(parts));
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
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
