import { createServer, type Server } from 'node:http';
import { loadConfig, ConfigError, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { openConfiguredDatabase } from './db/open-configured-database.js';
import { migrate } from './db/migrate.js';
import { loadPolicyFile } from './approvals/load-policy-file.js';
import { PolicyError } from './approvals/policy-error.js';
import { demoPolicy } from './demo/demo-policy.js';
import { seedDemoData } from './demo/seed-demo-data.js';
import { createDemoAgents } from './demo/create-demo-agents.js';
import { unconfiguredModel } from './agent/unconfigured-model.js';
import { suspendedRunsRoute } from './http/suspended-runs-route.js';
import { createSlackApp } from './slack/create-slack-app.js';
import { slackWebClient } from './slack/slack-web-client.js';
import { slackGroupResolver } from './slack/slack-group-resolver.js';
import { AgentError } from './agent/errors.js';
import { resolveModel } from './agent/model.js';

/**
 * Composition root: config → logger → database + migrations → demo data →
 * policy → agents → Slack (or, without Slack, the admin HTTP listing only).
 * SIGTERM/SIGINT stop taking work, let acknowledged work finish, then close.
 */
async function main(config: Config, logger: Logger): Promise<() => Promise<void>> {
  // Everything that can be wrong in the configuration fails before anything is opened.
  const policy = config.policyFile ? loadPolicyFile(config.policyFile) : demoPolicy;
  logger.info({ policyVersion: policy.version, source: config.policyFile ?? 'built-in demo policy' }, 'policy loaded');
  const slackConfigured = Boolean(config.slack.botToken);
  if (slackConfigured && !config.model) {
    throw new ConfigError('Invalid configuration: MODEL is required when Slack is configured (e.g. MODEL=openai/gpt-5-mini)', 'MODEL');
  }
  if (config.model) resolveModel(config.model, config.providers);

  const database = await openConfiguredDatabase(config);
  const applied = await migrate(database.db);
  logger.info({ database: database.kind, applied }, 'database ready');
  await seedDemoData(database.db);
  const model = config.model ?? unconfiguredModel();
  // With Slack, approver groups resolve through usergroups.users.list and the bot may never approve.
  const slackIdentity = slackConfigured ? await slackWorkspaceIdentity(config, logger) : undefined;
  const { ops } = createDemoAgents({ db: database.db, storage: database, model, policy, logger, ...slackIdentity });
  const listing = suspendedRunsRoute({ agents: [ops], ...(config.adminApiToken ? { adminToken: config.adminApiToken } : {}), logger });

  const httpMode = slackConfigured && !config.slack.appToken;
  const slack = slackConfigured
    ? createSlackApp({
        config: { ...config.slack, port: config.port },
        agent: ops,
        db: database.db,
        logger,
        ...(httpMode
          ? { customRoutes: [{ path: '/agents/:agentId/suspended-runs', method: ['GET'], handler: (req, res) => void listing(req, res) }] }
          : {}),
      })
    : undefined;
  if (slack) {
    const started = await slack.start();
    logger.info({ port: started.port, mode: httpMode ? 'http' : 'socket' }, 'Slack app started');
  }
  // Bolt serves HTTP only in HTTP mode; otherwise the health check and listing get their own server.
  const server: Server | undefined = httpMode
    ? undefined
    : createServer((req, res) => {
        void listing(req, res).then((handled) => {
          if (handled) return;
          res.writeHead(req.url === '/healthz' ? 200 : 404, { 'content-type': 'application/json' });
          res.end(JSON.stringify(req.url === '/healthz' ? { ok: true, slack: slackConfigured } : { error: 'not_found' }));
        });
      });
  if (server) await new Promise<void>((resolve) => server.listen(config.port, resolve));
  if (!slackConfigured) {
    logger.warn(
      { port: config.port },
      'Slack is not configured: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN) to connect a workspace. ' +
        'Serving /healthz and /agents/:agentId/suspended-runs only.',
    );
  }
  return async () => {
    await slack?.stop();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    await database.close();
  };
}

async function slackWorkspaceIdentity(config: Config, logger: Logger) {
  const client = slackWebClient(config.slack, logger);
  const auth = await client.auth.test();
  if (!auth.user_id) throw new ConfigError('SLACK_BOT_TOKEN: auth.test returned no bot user id', 'SLACK_BOT_TOKEN');
  return { botUserId: auth.user_id, resolveGroupMembers: slackGroupResolver(client) };
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
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
  if (error instanceof ConfigError || error instanceof PolicyError || error instanceof AgentError) {
    logger.fatal({ code: error.code }, error.message);
  } else {
    logger.fatal({ err: error }, 'start-up failed');
  }
  process.exit(1);
}
