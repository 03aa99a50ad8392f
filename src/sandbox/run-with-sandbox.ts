/**
 * `npm start` without a Slack workspace: the sandbox on PORT, the bot on a free port of its own,
 * wired to each other with a signing secret and bot token made up for this run. The bot is the
 * real one (HTTP mode, Bolt verifying every signature); it only gets a different Web API URL.
 * Its port listens on loopback only, whatever the sandbox's host: only the sandbox talks to it,
 * and its routes (/metrics, the admin listing) are nobody else's business.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { startSandbox, type Sandbox, type SandboxOptions } from './start-sandbox.js';

/** What `createBot` returns: `createSlackApp(...)` fits as it is. */
interface SandboxBot {
  start(): Promise<{ port?: number }>;
  stop(): Promise<void>;
}

interface RunWithSandboxOptions {
  /** The loaded configuration; its `port` is where the sandbox UI listens. */
  config: Config;
  logger: Logger;
  /**
   * Builds the bot from a configuration that points at the sandbox: `slack.botToken`,
   * `slack.signingSecret` and `slack.apiUrl` are set, `port` is 0 (any free port) and `httpHost`
   * is loopback.
   */
  createBot: (config: Config) => SandboxBot | Promise<SandboxBot>;
  /** For the UI's banner, e.g. "built-in demo model". */
  modelLabel: string;
  /** See SandboxOptions.host; the configuration's `sandboxHost` (SANDBOX_HOST), else loopback. */
  host?: string;
  /** See SandboxOptions.stateFile, e.g. join(config.dataDir, 'sandbox.json'). */
  stateFile?: string;
  /** See SandboxOptions.examples. */
  examples?: string[];
  /** See SandboxOptions.extraRoutes. */
  extraRoutes?: SandboxOptions['extraRoutes'];
}

export interface RunningSandbox {
  sandbox: Sandbox;
  bot: SandboxBot;
  /** Stops the bot first (it may still be posting), then the sandbox. */
  stop(): Promise<void>;
}

const BOT_HOST = '127.0.0.1';

export async function runWithSandbox(options: RunWithSandboxOptions): Promise<RunningSandbox> {
  const { config, logger } = options;
  const signingSecret = randomBytes(32).toString('hex');
  // The `xoxb-` prefix keeps the token valid for the configuration's own check.
  const botToken = `xoxb-sandbox-${randomBytes(16).toString('hex')}`;
  const host = options.host ?? config.sandboxHost;
  const sandbox = await startSandbox({
    port: config.port,
    ...(host ? { host } : {}),
    ...(options.stateFile ? { stateFile: options.stateFile } : {}),
    ...(options.extraRoutes ? { extraRoutes: options.extraRoutes } : {}),
    ...(options.examples ? { examples: options.examples } : {}),
    signingSecret,
    botToken,
    logger,
    modelLabel: options.modelLabel,
  });
  let bot: SandboxBot | undefined;
  try {
    const botConfig: Config = {
      ...config,
      slack: { botToken, signingSecret, apiUrl: sandbox.apiUrl },
      port: 0,
      httpHost: BOT_HOST,
    };
    bot = await options.createBot(botConfig);
    const { port } = await bot.start();
    if (port === undefined) throw new Error('the bot did not report an HTTP port (Socket Mode cannot be used with the sandbox)');
    sandbox.connectBot(`http://${BOT_HOST}:${port}/slack/events`);
    logger.info({ url: sandbox.url, botPort: port, model: options.modelLabel }, `Sandbox ready: open ${sandbox.url} to talk to the bot`);
  } catch (error) {
    await bot?.stop().catch(() => undefined);
    await sandbox.stop();
    throw error;
  }
  const running = bot;
  return {
    sandbox,
    bot: running,
    async stop() {
      await running.stop();
      await sandbox.stop();
    },
  };
}
