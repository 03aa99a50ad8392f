#!/usr/bin/env node
import { loadConfig, ConfigError, type Config } from './config.js';
import { createLogger, logFormatFor, type Logger } from './logger.js';
import { loadPolicyFile } from './approvals/load-policy-file.js';
import { PolicyError } from './approvals/policy-error.js';
import { AgentsModuleError } from './bot/agents-module-error.js';
import { AgentError } from './agent/errors.js';
import { errorMessage } from './error-message.js';
import { McpConfigError } from './mcp/mcp-config-error.js';
import { drainOnSignals, type Drainable } from './drain-on-signals.js';
import type { StartChecks } from './start-bot.js';

/**
 * The entry point: config → logger → the signal handlers → what the configuration names checked
 * (POLICY_FILE, SHADOW_POLICY_FILE, MODEL, AGENTS_MODULE) → the bot (start-bot.ts, the composition
 * root). start-bot.ts and all it brings (Slack, the AI SDK, the database) are loaded only once the
 * configuration's own checks pass, so a refused start says why without loading them; an agents
 * module is imported after them, and nothing is opened before it has loaded.
 * SIGTERM/SIGINT stop taking work, let acknowledged work finish, then close (drain-on-signals.ts).
 */
async function main(config: Config, logger: Logger): Promise<Drainable> {
  // Everything that can be wrong in the configuration fails before anything is opened.
  const policyFile = config.policyFile ? { path: config.policyFile, policy: loadPolicyFile(config.policyFile) } : undefined;
  // A shadow policy that cannot be read stops start-up as the enforced one does: a trial nobody sees fail is no trial.
  const shadowPolicy = config.shadowPolicyFile ? loadPolicyFile(config.shadowPolicyFile) : undefined;
  const slackConfigured = Boolean(config.slack.botToken);
  // An agents module brings its own models; MODEL is the demo's.
  if (slackConfigured && !config.model && !config.agentsModule) {
    throw new ConfigError('Invalid configuration: MODEL is required when Slack is configured (e.g. MODEL=openai/gpt-5-mini)', 'MODEL');
  }
  if (config.model) {
    const { resolveModel } = await import('./agent/model.js');
    resolveModel(config.model, config.providers);
  }
  // Loaded before the agents module: a TypeScript one registers tsx for the rest of the process,
  // and everything loaded after it goes through tsx's hooks (about 1.5 s more CPU per start).
  const { startBot } = await import('./start-bot.js');
  let agentsModule: StartChecks['agentsModule'];
  if (config.agentsModule) {
    const { importAgentsModule } = await import('./bot/load-agents-module.js');
    agentsModule = await importAgentsModule({ path: config.agentsModule, policyFile, logger, runLeaseMs: config.timings.runLeaseMs, maxConcurrentRuns: config.maxConcurrentRuns, providers: config.providers });
  }
  return startBot(config, logger, { policyFile, shadowPolicy, slackConfigured, agentsModule });
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  console.error(errorMessage(error));
  process.exit(1);
}
const logger = createLogger({ level: config.logLevel, format: logFormatFor(config.logFormat) });
const signals = drainOnSignals({ logger, timeoutMs: config.shutdownTimeoutMs });
// A library failing outside any request (e.g. a Socket Mode reconnect giving up) must not die silently.
process.on('unhandledRejection', (reason) => {
  logger.fatal({ err: reason }, 'unhandled rejection; exiting so a supervisor can restart the bot');
  process.exit(1);
});
try {
  signals.attach(await main(config, logger));
} catch (error) {
  if (error instanceof ConfigError || error instanceof PolicyError || error instanceof AgentError || error instanceof AgentsModuleError || error instanceof McpConfigError) {
    logger.fatal({ code: error.code }, error.message);
  } else {
    logger.fatal({ err: error }, 'start-up failed');
  }
  process.exit(1);
}
