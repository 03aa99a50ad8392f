import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/logger.js';
import { boltLogger } from '../../../../src/slack/transport/bolt-logger.js';

function capture(level: string) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: boltLogger(createLogger({ level }, sink)), lines };
}

describe('boltLogger', () => {
  it('writes Bolt lines into the pino stream, objects as JSON, with secrets scrubbed', () => {
    const { logger, lines } = capture('info');
    logger.warn('retrying', { attempt: 2 }, 'token xoxb-123456789012-abcdefghijkl');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { msg: string; component: string };
    expect(line.component).toBe('bolt');
    expect(line.msg).toContain('retrying {"attempt":2}');
    expect(line.msg).not.toContain('xoxb-123456789012');
  });

  it('does not format lines below the level (Bolt logs debug lines on every request)', () => {
    const { logger, lines } = capture('info');
    let formatted = 0;
    logger.debug('request', { toJSON: () => ((formatted += 1), 'x') });
    expect(formatted).toBe(0);
    expect(lines).toEqual([]);
  });
});
