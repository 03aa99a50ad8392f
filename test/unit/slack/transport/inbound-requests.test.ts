import { createServer, request, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { inboundRequests } from '../../../../src/slack/transport/inbound-requests.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A server whose responses are sent when the test says so. */
async function serve() {
  const open: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => open.push(res));
  });
  const inbound = inboundRequests(server);
  let idle = 0;
  inbound.onIdle(() => void (idle += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { port, inbound, open, idleCount: () => idle };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}

function rawConnection(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', () => {});
  });
}

describe('inboundRequests', () => {
  it('counts a connection from accept, before it has sent anything, and lets go when it closes', async () => {
    const s = await serve();
    expect(s.inbound.pending).toBe(0);
    const socket = await rawConnection(s.port);
    await until(() => s.inbound.pending === 1);
    socket.destroy();
    await until(() => s.inbound.pending === 0);
    expect(s.idleCount()).toBe(1);
  });

  it('counts a request until its response is sent, and each keep-alive request again', async () => {
    const s = await serve();
    const socket = await rawConnection(s.port);
    const ask = () => socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi');
    ask();
    await until(() => s.open.length === 1);
    expect(s.inbound.pending).toBe(1);
    s.open[0]!.end('ok');
    await until(() => s.inbound.pending === 0);

    ask();
    await until(() => s.open.length === 2);
    expect(s.inbound.pending).toBe(1);
    s.open[1]!.end('ok');
    await until(() => s.inbound.pending === 0);
    expect(s.idleCount()).toBe(2);
    socket.destroy();
  });

  it('lets go of a request whose client disconnects before the answer', async () => {
    const s = await serve();
    const req = request({ port: s.port, host: '127.0.0.1', method: 'POST', agent: false });
    req.on('error', () => {});
    req.end('body');
    await until(() => s.open.length === 1);
    expect(s.inbound.pending).toBe(1);
    req.destroy();
    await until(() => s.inbound.pending === 0);
  });
});
