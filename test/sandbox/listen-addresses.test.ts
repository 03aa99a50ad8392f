/**
 * Where the sandbox and the bot behind it listen, read from the kernel's socket tables:
 * SANDBOX_HOST=0.0.0.0 opens the sandbox's UI to the network on purpose and leaves the bot's own
 * port (its /metrics and admin listing) on loopback, since runWithSandbox gives the bot loopback
 * whatever the sandbox's host. The default (both on loopback) is walked through `npm start`
 * itself in browser.test.ts; here a stand-in bot listens where the configuration tells it to.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { runWithSandbox, type RunningSandbox } from '../../src/sandbox/run-with-sandbox.js';
import { listeningAddresses, nonLoopbackAddresses, portTakenOn } from '../helpers/listening-addresses.js';
import { createLogger } from '../../src/logger.js';

/** Answers the sandbox's deliveries with 200 and nothing else, listening on the host its configuration names. */
function standInBot(host: string | undefined) {
  let server: Server | undefined;
  return {
    async start() {
      server = createServer((_req, res) => res.end());
      await new Promise<void>((resolve) => server!.listen(0, host, resolve));
      return { port: (server.address() as AddressInfo).port };
    },
    async stop() {
      await new Promise((resolve) => server?.close(resolve));
    },
  };
}

describe('where the sandbox listens', () => {
  let running: RunningSandbox | undefined;
  let botPort = 0;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  async function start(env: Record<string, string>) {
    running = await runWithSandbox({
      config: parseConfig({ PORT: '0', ...env }),
      logger: createLogger({ level: 'silent' }),
      modelLabel: 'none',
      createBot: async (botConfig) => {
        const bot = standInBot(botConfig.httpHost);
        return { start: async () => ({ port: (botPort = (await bot.start()).port) }), stop: bot.stop };
      },
    });
    return { ui: Number(new URL(running.sandbox.url).port), bot: botPort };
  }

  it('SANDBOX_HOST=0.0.0.0: the UI on every interface, the bot still on loopback only', async () => {
    const { ui, bot } = await start({ SANDBOX_HOST: '0.0.0.0' });
    expect(listeningAddresses(ui)).toEqual(['0.0.0.0']);
    expect(listeningAddresses(bot)).toEqual(['127.0.0.1']);
    for (const address of nonLoopbackAddresses()) {
      expect(await portTakenOn(address, ui)).toBe(true);
      expect(await portTakenOn(address, bot)).toBe(false);
    }
    // The address to open (and the one the bot's Web API calls go to) is loopback's, which every interface includes.
    expect(running!.sandbox.url).toBe(`http://127.0.0.1:${ui}`);
    expect((await fetch(`${running!.sandbox.url}/healthz`)).status).toBe(200);
  });

  it('without SANDBOX_HOST: both on loopback only', async () => {
    const { ui, bot } = await start({});
    expect(listeningAddresses(ui)).toEqual(['127.0.0.1']);
    expect(listeningAddresses(bot)).toEqual(['127.0.0.1']);
  });
});
