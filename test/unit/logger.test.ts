import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logFormatFor } from '../../src/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('logger', () => {
  it('redacts tokens, secrets and keys wherever they appear', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'info' }, stream);
    logger.info({ config: { slack: { botToken: 'xoxb-123-secret', signingSecret: 'shh' }, apiKey: 'sk-live-abcdefghij' } }, 'config');
    logger.info({ token: 'xoxb-999-top' }, 'token field');
    logger.info('message quoting xoxb-111-222-abc and xapp-1-A-b and sk-abcdefghijklmnop');
    logger.error({ err: new Error('invalid_auth for xoxb-42-leak') }, 'failed');
    const all = lines.join('\n');
    for (const secret of ['xoxb-123-secret', 'shh', 'sk-live-abcdefghij', 'xoxb-999-top', 'xoxb-111-222-abc', 'xapp-1-A-b', 'sk-abcdefghijklmnop', 'xoxb-42-leak']) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('[Redacted]');
  });

  it('redacts each secret-bearing key at the depths a config, client options or a request put it', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'info' }, stream);
    const nested = (keys: string[], secret: string) => keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), secret) as object;
    const cases: string[][] = [
      ...['token', 'botToken', 'appToken', 'signingSecret', 'apiKey', 'password', 'authorization'].flatMap((key) => [[key], ['config', key], ['config', 'slack', key]]),
      ['secret'], ['options', 'secret'], ['options', 'fetch', 'secret'], ['databaseUrl'], ['config', 'databaseUrl'],
      ['headers', 'authorization'], ['headers', 'x-slack-signature'], ['req', 'headers', 'authorization'],
    ];
    cases.forEach((keys, i) => logger.info(nested(keys, `not-for-logs-${i}-end`), keys.join('.')));
    expect(lines).toHaveLength(cases.length);
    cases.forEach((keys, i) => expect(lines[i], keys.join('.')).not.toContain(`not-for-logs-${i}-end`));
  });

  it('carries child context', () => {
    const { lines, stream } = capture();
    createLogger({}, stream).child({ runId: 'r1', toolCallId: 'c1' }).info('hello');
    expect(JSON.parse(lines[0]!)).toMatchObject({ runId: 'r1', toolCallId: 'c1', msg: 'hello' });
  });

  it('pretty: one readable line per entry, context included, secrets redacted as in JSON', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ format: 'pretty' }, stream);
    logger.child({ runId: 'r1' }).info({ config: { botToken: 'xoxb-123-secret' } }, 'run started with xoxb-999-leak');
    const all = lines.join('');
    expect(() => JSON.parse(lines[0]!)).toThrow();
    expect(all).toMatch(/INFO.*run started with \[Redacted\]/);
    expect(all).toContain('"runId":"r1"');
    expect(all).not.toContain('xoxb-123-secret');
    expect(all).not.toContain('xoxb-999-leak');
    // Not a terminal: no colour codes in what a file or pipe receives.
    expect(all).not.toContain('\u001b[');
  });

  it('LOG_FORMAT wins; unset, a terminal gets pretty lines and anything else JSON', () => {
    expect(logFormatFor('json', true)).toBe('json');
    expect(logFormatFor('pretty', false)).toBe('pretty');
    expect(logFormatFor(undefined, true)).toBe('pretty');
    expect(logFormatFor(undefined, false)).toBe('json');
  });
});
