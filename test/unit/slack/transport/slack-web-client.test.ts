import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../../../src/config.js';
import { silentLogger, createLogger } from '../../../../src/logger.js';
import { slackWebClient, boltLogger } from '../../../../src/slack/transport/slack-web-client.js';
import { Writable } from 'node:stream';

let server: Server | undefined;

afterEach(async () => {
  vi.unstubAllGlobals();
  const s = server;
  server = undefined;
  if (s) await new Promise<void>((resolve) => (s.close(() => resolve()), s.closeAllConnections()));
});

/** A loopback Web API that answers every method with ok; counts what reached it. */
async function fakeApi(): Promise<{ apiUrl: string; calls: string[] }> {
  const calls: string[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, user_id: 'U0BOT' }));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`, calls };
}

describe('slackWebClient', () => {
  it("uses the bot's own transport, or the global fetch when Node is told to send HTTP through the environment's proxy", async () => {
    const { apiUrl, calls } = await fakeApi();
    // Stands in for the global fetch that Node points at HTTP(S)_PROXY; it records, then calls the real one.
    const realFetch = globalThis.fetch;
    const viaGlobal: string[] = [];
    vi.stubGlobal('fetch', (url: string | URL | Request, init?: RequestInit) => {
      viaGlobal.push(String(url));
      return realFetch(url, init);
    });

    const direct = parseConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', SLACK_API_URL: apiUrl });
    expect(direct.slack.useEnvProxy).toBe(false);
    expect((await slackWebClient(direct.slack, silentLogger).auth.test()).user_id).toBe('U0BOT');
    expect(viaGlobal).toEqual([]);

    for (const env of [{ NODE_USE_ENV_PROXY: '1' }, { NODE_OPTIONS: '--max-old-space-size=512 --use-env-proxy' }]) {
      const proxied = parseConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', SLACK_API_URL: apiUrl, ...env });
      expect(proxied.slack.useEnvProxy).toBe(true);
      viaGlobal.length = 0;
      expect((await slackWebClient(proxied.slack, silentLogger).auth.test()).user_id).toBe('U0BOT');
      expect(viaGlobal).toEqual([`${apiUrl}auth.test`]);
    }
    expect(calls).toEqual(['/api/auth.test', '/api/auth.test', '/api/auth.test']);
    expect(parseConfig({ NODE_USE_ENV_PROXY: '0', NODE_OPTIONS: '--use-env-proxy-not' }).slack.useEnvProxy).toBe(false);
  });
});

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
