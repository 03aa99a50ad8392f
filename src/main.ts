import { createServer, type Server } from 'node:http';
import { loadConfig, ConfigError, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { openConfiguredDatabase } from './db/open-configured-database.js';
import { migrate } from './db/migrate.js';
import { loadPolicyFile } from './approvals/load-policy-file.js';
import { PolicyError } from './approvals/policy-error.js';
import { startDemo } from './demo/start-demo.js';
import { loadAgentsModule } from './bot/load-agents-module.js';
import { AgentsModuleError } from './bot/agents-module-error.js';
import { runWithSandbox } from './sandbox/run-with-sandbox.js';
import { join } from 'node:path';
import { suspendedRunsRoute } from './http/suspended-runs-route.js';
import { createSlackApp } from './slack/create-slack-app.js';
import { slackWebClient } from './slack/transport/slack-web-client.js';
import { slackGroupResolver } from './slack/transport/slack-group-resolver.js';
import { AgentError } from './agent/errors.js';
import { resolveModel } from './agent/model.js';
import { errorMessage } from './error-message.js';
import { watchPolicy } from './watch-policy.js';
import type { BotAgents, WorkspaceIdentity } from './bot-agents.js';

/**
 * Composition root: config → logger → database + migrations → agents (AGENTS_MODULE's,
 * or else the demo) → Slack app; without Slack variables, the same
 * bot behind the local sandbox (a Slack-compatible UI and Web API on PORT).
 * SIGTERM/SIGINT stop taking work, let acknowledged work finish, then close.
 */
async function main(config: Config, logger: Logger): Promise<() => Promise<void>> {
  // Everything that can be wrong in the configuration fails before anything is opened.
  const policyFile = config.policyFile ? { path: config.policyFile, policy: loadPolicyFile(config.policyFile) } : undefined;
  const slackConfigured = Boolean(config.slack.botToken);
  // An agents module brings its own models; MODEL is the demo's.
  if (slackConfigured && !config.model && !config.agentsModule) {
    throw new ConfigError('Invalid configuration: MODEL is required when Slack is configured (e.g. MODEL=openai/gpt-5-mini)', 'MODEL');
  }
  if (config.model) resolveModel(config.model, config.providers);

  const database = await openConfiguredDatabase(config, logger);
  const applied = await migrate(database.db);
  logger.info({ database: database.kind, applied }, 'database ready');
  // The one place the agents come from: the team's own (AGENTS_MODULE), or else the demo (its tables,
  // rows, model and agents).
  const agents: BotAgents = config.agentsModule
    ? await loadAgentsModule({ path: config.agentsModule, database, policyFile, logger, runLeaseMs: config.timings.runLeaseMs })
    : await startDemo({ database, model: config.model ?? defaultModelFor(config), policyFile, logger, runLeaseMs: config.timings.runLeaseMs });
  logger.info({ policyVersion: agents.policy.version, source: agents.policySource }, 'policy loaded');
  logger.info({ model: agents.modelLabel }, 'model selected');
  // SIGHUP and edits of POLICY_FILE swap the policy for new requests (see watch-policy.ts).
  const policy = watchPolicy({ path: config.policyFile, initial: agents.policy, logger });

  /** The agents and the Slack app, for whichever Slack the configuration points at. */
  const createBot = async (botConfig: Config) => {
    const agent = policy.follow(agents.agentFor(await slackWorkspaceIdentity(botConfig, logger)));
    const listing = suspendedRunsRoute({ agents: [agent], ...(config.adminApiToken ? { adminToken: config.adminApiToken } : {}), logger });
    const httpMode = !botConfig.slack.appToken;
    const slack = createSlackApp({
      config: { ...botConfig.slack, port: botConfig.port },
      agent,
      db: database.db,
      logger,
      sweepIntervalMs: config.timings.sweepIntervalMs,
      cardRepairAfterMs: config.timings.cardRepairAfterMs,
      ...(httpMode
        ? { customRoutes: [{ path: '/agents/:agentId/suspended-runs', method: ['GET'], handler: (req, res) => void listing(req, res) }] }
        : {}),
    });
    return { slack, listing, httpMode };
  };

  if (!slackConfigured) {
    // No workspace configured: a local Slack (the sandbox) on PORT with the unchanged bot behind it.
    let listing: ReturnType<typeof suspendedRunsRoute> | undefined;
    const running = await runWithSandbox({
      config,
      logger,
      modelLabel: agents.modelLabel,
      stateFile: join(config.dataDir, 'sandbox.json'),
      extraRoutes: async (req, res) => (listing ? listing(req, res) : false),
      createBot: async (botConfig) => {
        const bot = await createBot(botConfig);
        listing = bot.listing;
        return bot.slack;
      },
    });
    return async () => {
      policy.close();
      await running.stop();
      await database.close();
    };
  }

  const { slack, listing, httpMode } = await createBot(config);
  const started = await slack.start();
  logger.info({ port: started.port, mode: httpMode ? 'http' : 'socket' }, 'Slack app started');
  // Bolt serves HTTP only in HTTP mode; in Socket Mode the health check and listing get their own server.
  const server: Server | undefined = httpMode
    ? undefined
    : createServer((req, res) => {
        void listing(req, res).then((handled) => {
          if (handled) return;
          res.writeHead(req.url === '/healthz' ? 200 : 404, { 'content-type': 'application/json' });
          res.end(JSON.stringify(req.url === '/healthz' ? { ok: true } : { error: 'not_found' }));
        });
      });
  if (server) await new Promise<void>((resolve) => server.listen(config.port, resolve));
  return async () => {
    policy.close();
    await slack.stop();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    await database.close();
  };
}

/** With a provider key but no MODEL, that provider's everyday model; the demo model only when there is no key. */
function defaultModelFor(config: Config): string | undefined {
  if (config.providers.openai.apiKey) return 'openai/gpt-5-mini';
  if (config.providers.anthropic.apiKey) return 'anthropic/claude-sonnet-4-5';
  return undefined;
}

async function slackWorkspaceIdentity(config: Config, logger: Logger): Promise<WorkspaceIdentity> {
  const client = slackWebClient(config.slack, logger);
  const auth = await client.auth.test();
  if (!auth.user_id) throw new ConfigError('SLACK_BOT_TOKEN: auth.test returned no bot user id', 'SLACK_BOT_TOKEN');
  return { botUserId: auth.user_id, resolveGroupMembers: slackGroupResolver(client) };
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  console.error(errorMessage(error));
  process.exit(1);
}
const logger = createLogger({ level: config.logLevel });
try {
  const stop = await main(config, logger);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // A library failing outside any request (e.g. a Socket Mode reconnect giving up) must not die silently.
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled rejection; exiting so a supervisor can restart the bot');
    process.exit(1);
  });
  process.on('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
  if (error instanceof ConfigError || error instanceof PolicyError || error instanceof AgentError || error instanceof AgentsModuleError) {
    logger.fatal({ code: error.code }, error.message);
  } else {
    logger.fatal({ err: error }, 'start-up failed');
  }
  process.exit(1);
}
