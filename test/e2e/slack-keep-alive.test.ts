import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { slackHarness, startBot, type AgentDeps } from '../helpers/slack-bot.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection to 127.0.0.1:`port`, once it is open. */
async function opened(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

/** Sends one request on the socket and resolves with the status line of its response. */
function request(socket: Socket, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    if (socket.readableEnded || socket.destroyed) {
      reject(new Error('the server closed the connection while it was idle'));
      return;
    }
    const onData = (chunk: Buffer) => {
      cleanup();
      resolve(chunk.toString('latin1').split('\r\n')[0]!);
    };
    const onGone = () => {
      cleanup();
      reject(new Error('the server closed the connection'));
    };
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('end', onGone);
      socket.off('close', onGone);
      socket.off('error', onGone);
    };
    socket.on('data', onData);
    socket.once('end', onGone);
    socket.once('close', onGone);
    socket.once('error', onGone);
    socket.write(raw);
  });
}

describeOnOneBackend('the bot’s HTTP server and connections from a load balancer, on %s', (backend) => {
  const h = slackHarness(backend);

  it('keeps an idle keep-alive connection open past Node’s default, so a reused connection is not reset', async () => {
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps: AgentDeps) => new Agent({ id: 'ops', model: scriptedModel([{ text: 'hi' }]), storage: h.database, policy: definePolicy({}), ...deps }),
    });
    const { port } = new URL(h.bot.url);
    // Beside it, a server with Node's defaults: the moment it closes its idle connection is the
    // moment the bot's would close with those defaults, on whichever Node runs this.
    const plain = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', () => resolve()));
    const socket = await opened(Number(port));
    const control = await opened((plain.address() as AddressInfo).port);
    const controlClosed = new Promise<void>((resolve) => control.once('close', () => resolve()));
    const healthz = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`;
    try {
      expect(await request(socket, healthz)).toBe('HTTP/1.1 200 OK');
      // The bot's connection goes idle half a second before the other, so it has been idle longer
      // when the other is closed.
      await sleep(500);
      expect(await request(control, healthz)).toBe('HTTP/1.1 200 OK');
      await controlClosed;
      // Idle for longer than Node closes such connections by default: a balancer would still reuse it now.
      expect(await request(socket, healthz)).toBe('HTTP/1.1 200 OK');
    } finally {
      socket.destroy();
      control.destroy();
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  }, 20_000);
});
