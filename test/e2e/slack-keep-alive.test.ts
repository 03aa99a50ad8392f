import { connect, type Socket } from 'node:net';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { describeFrontEnd } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { slackHarness, startBot, type AgentDeps } from '../helpers/slack-bot.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

describeFrontEnd('the bot’s HTTP server and connections from a load balancer, on %s', (backend) => {
  const h = slackHarness(backend);

  it('keeps an idle keep-alive connection open past Node’s default, so a reused connection is not reset', async () => {
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps: AgentDeps) => new Agent({ id: 'ops', model: scriptedModel([{ text: 'hi' }]), storage: h.database, policy: definePolicy({}), ...deps }),
    });
    const { port } = new URL(h.bot.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const healthz = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`;
    try {
      expect(await request(socket, healthz)).toBe('HTTP/1.1 200 OK');
      // Idle for longer than Node closes such connections by default (keepAliveTimeout 5 s, closed
      // about a second after that): a balancer would still reuse it now.
      await sleep(7_000);
      expect(await request(socket, healthz)).toBe('HTTP/1.1 200 OK');
    } finally {
      socket.destroy();
    }
  }, 20_000);
});
