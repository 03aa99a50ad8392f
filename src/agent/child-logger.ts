import type { Logger } from '../logger.js';

const levels = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);
const ignore = () => {};

/**
 * `logger.child(bindings)`, made only when a line is written at a level the logger writes.
 * Runs, decisions and tool calls each get a child logger, most of which never write a
 * line: pino's child serialises its bindings up front, a cost paid on every approval cycle.
 */
export function childLogger(logger: Logger, bindings: Record<string, unknown>): Logger {
  if (logger.level === 'silent') return logger;
  let child: Logger | undefined;
  return new Proxy(logger, {
    get(target, key) {
      if (typeof key === 'string' && levels.has(key) && !target.isLevelEnabled(key)) return ignore;
      child ??= target.child(bindings);
      const value: unknown = Reflect.get(child, key, child);
      return typeof value === 'function' ? value.bind(child) : value;
    },
  });
}
