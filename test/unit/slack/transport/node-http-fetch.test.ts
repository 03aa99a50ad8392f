import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NodeHttpFetchError, nodeHttpFetch } from '../../../../src/slack/transport/node-http-fetch.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  connection: number;
}

let server: Server | undefined;

/** A loopback server answering with `answer`; records every request and which connection it came on. */
async function serve(answer: (req: Seen, res: ServerResponse) => void): Promise<{ origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  let connections = 0;
  const ids = new WeakMap<object, number>();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString(), connection: ids.get(req.socket)! };
      seen.push(s);
      answer(s, res);
    });
  });
  server.on('connection', (socket) => ids.set(socket, ++connections));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  const s = server;
  server = undefined;
  if (s) await new Promise<void>((resolve) => (s.close(() => resolve()), s.closeAllConnections()));
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));

describe('nodeHttpFetch', () => {
  it('sends the method, headers and body, and answers with status, headers and body as fetch would', async () => {
    const { origin, seen } = await serve((_req, res) => json(res, 201, { ok: true, text: 'héllo' }, { 'X-OAuth-Scopes': 'chat:write, reactions:write' }));
    const fetch = nodeHttpFetch();
    const response = await fetch(`${origin}/api/chat.postMessage`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: 'Bearer xoxb-1' },
      body: 'channel=C1&text=h%C3%A9llo',
    });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/chat.postMessage', body: 'channel=C1&text=h%C3%A9llo' });
    expect(seen[0]!.headers).toMatchObject({ 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer xoxb-1', 'content-length': '26' });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${origin}/api/chat.postMessage`);
    expect(response.headers.get('x-oauth-scopes')).toBe('chat:write, reactions:write');
    expect(response.headers.get('X-OAUTH-SCOPES')).toBe('chat:write, reactions:write');
    expect(response.headers.get('retry-after')).toBeNull();
    expect([...response.headers.entries()]).toContainEqual(['content-type', 'application/json; charset=utf-8']);
    expect(await response.json()).toEqual({ ok: true, text: 'héllo' });
    expect(await response.text()).toBe('{"ok":true,"text":"héllo"}');
    expect(new TextDecoder().decode(await response.arrayBuffer())).toBe('{"ok":true,"text":"héllo"}');
  });

  it('keeps the connection open between calls', async () => {
    const { origin, seen } = await serve((_req, res) => json(res, 200, { ok: true }));
    const fetch = nodeHttpFetch();
    for (let i = 0; i < 3; i++) await fetch(`${origin}/api/auth.test`, { method: 'POST', body: '' });
    expect(seen.map((s) => s.connection)).toEqual([1, 1, 1]);
  });

  it('lets a slow answer outlive the idle-connection timeout, and closes idle connections after it', async () => {
    let closed = 0;
    const { origin, seen } = await serve((_req, res) => void setTimeout(() => json(res, 200, { ok: true }), 150));
    server!.on('connection', (socket) => socket.on('close', () => (closed += 1)));
    const fetch = nodeHttpFetch({ idleSocketMs: 50 });
    expect((await fetch(`${origin}/api/a`, { method: 'POST', body: '' })).status).toBe(200);
    await vi.waitFor(() => expect(closed).toBe(1), { timeout: 5_000, interval: 10 });
    expect((await fetch(`${origin}/api/b`, { method: 'POST', body: '' })).status).toBe(200);
    expect(seen.map((s) => s.connection)).toEqual([1, 2]);
  });

  it('is what the WebClient calls through, rate limits included', async () => {
    let calls = 0;
    const { origin, seen } = await serve((req, res) => {
      calls += 1;
      if (req.url.endsWith('/chat.update')) json(res, 429, { ok: false, error: 'ratelimited' }, { 'Retry-After': '7' });
      else json(res, 200, { ok: true, channel: 'C1', ts: '1.2' });
    });
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: `${origin}/api/`, fetch: nodeHttpFetch(), rejectRateLimitedCalls: true });
    await expect(client.chat.postMessage({ channel: 'C1', text: 'hi <there>' })).resolves.toMatchObject({ ok: true, ts: '1.2' });
    expect(new URLSearchParams(seen[0]!.body).get('text')).toBe('hi <there>');
    expect(seen[0]!.headers.authorization).toBe('Bearer xoxb-test');
    await expect(client.chat.update({ channel: 'C1', ts: '1.2', text: 'x' })).rejects.toMatchObject({ code: webApi.ErrorCode.RateLimitedError, retryAfter: 7 });
    expect(calls).toBe(2);
  });

  it('refuses a redirect, as fetch does with redirect: "error"', async () => {
    const { origin } = await serve((_req, res) => res.writeHead(302, { location: 'http://example.com/' }).end());
    await expect(nodeHttpFetch()(`${origin}/api/x`, { method: 'POST', body: '', redirect: 'error' })).rejects.toMatchObject({ code: 'redirect' });
  });

  it('gives up on a server that does not answer, and on an aborted call', async () => {
    const { origin } = await serve(() => {});
    const error = await nodeHttpFetch({ timeoutMs: 50 })(`${origin}/api/x`, { method: 'POST', body: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeHttpFetchError);
    expect(error).toMatchObject({ code: 'timeout' });
    const controller = new AbortController();
    const pending = nodeHttpFetch()(`${origin}/api/x`, { method: 'POST', body: '', signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });

  it('fails when the connection drops in the middle of the answer', async () => {
    const { origin } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"ok":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await expect(nodeHttpFetch({ timeoutMs: 5_000 })(`${origin}/api/x`, { method: 'POST', body: '' })).rejects.toThrow();
  });

  it('fails like fetch when nothing listens', async () => {
    const { origin } = await serve(() => {});
    await new Promise<void>((resolve) => (server!.close(() => resolve()), server!.closeAllConnections()));
    server = undefined;
    await expect(nodeHttpFetch()(`${origin}/api/x`, { method: 'POST', body: '' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('leaves multipart bodies (file uploads) to the global fetch', async () => {
    const { origin, seen } = await serve((_req, res) => json(res, 200, { ok: true }));
    const form = new FormData();
    form.append('file', new Blob(['abc']), 'a.txt');
    const response = await nodeHttpFetch()(`${origin}/upload`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(seen[0]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]!.body).toContain('abc');
  });
});
