import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ConfigError, type Config } from './config.js';
import { logFormatFor, type Logger } from './logger.js';
import { openConfiguredDatabase } from './db/open-configured-database.js';
import { migrate } from './db/migrate.js';
import type { Policy } from './approvals/policy-types.js';
import { startDemo } from './demo/start-demo.js';
import type { importAgentsModule } from './bot/load-agents-module.js';
import { runWithSandbox } from './sandbox/run-with-sandbox.js';
import { suspendedRunsRoute } from './http/suspended-runs-route.js';
import { createSlackApp } from './slack/app.js';
import { slackWebClient, slackGroupResolver } from './slack/transport/slack-web-client.js';
import { watchPolicy } from './watch-policy.js';
import type { BotAgents, WorkspaceIdentity } from './bot-agents.js';
import type { AttachedMcpServers } from './mcp/attach-mcp-servers.js';
import { healthRoutes } from './http/health-routes.js';
import { readinessCheck } from './http/readiness.js';
import { metricsRegistry } from './metrics/metrics-registry.js';
import type { Drainable } from './drain-on-signals.js';

/** What main.ts has read and checked before anything is opened (see there). */
export interface StartChecks {
  /** POLICY_FILE, read and valid. */
  policyFile: { path: string; policy: Policy } | undefined;
  /** SHADOW_POLICY_FILE, read and valid. */
  shadowPolicy: Policy | undefined;
  /** Whether a Slack workspace is configured (else the sandbox). */
  slackConfigured: boolean;
  /** AGENTS_MODULE, imported and checked. */
  agentsModule: Awaited<ReturnType<typeof importAgentsModule>> | undefined;
}

/**
 * Composition root: database + migrations → agents (AGENTS_MODULE's, or else the demo) → MCP
 * servers → Slack app; without Slack variables, the same bot behind the local sandbox (a
 * Slack-compatible UI and Web API on PORT). main.ts loads this file only once the configuration
 * has passed its checks, so a refused start never loads Slack, the AI SDK or the database.
 */
export async function startBot(config: Config, logger: Logger, checks: StartChecks): Promise<Drainable> {
  const { policyFile, shadowPolicy, slackConfigured, agentsModule } = checks;
  const database = await openConfiguredDatabase(config, logger);
  const applied = await migrate(database.db);
  logger.info({ database: database.kind, applied }, 'database ready');
  // The one place the agents come from: the team's own (AGENTS_MODULE), or else the demo (its tables,
  // rows, model and agents).
  const agents: BotAgents = agentsModule
    ? agentsModule.serve(database)
    : await startDemo({
        database,
        model: config.model ?? defaultModelFor(config),
        providers: config.providers,
        policyFile,
        logger,
        runLeaseMs: config.timings.runLeaseMs,
        maxConcurrentRuns: config.maxConcurrentRuns,
        sandbox: !slackConfigured,
      });
  logger.info({ policyVersion: agents.policy.version, source: agents.policySource }, 'policy loaded');
  logger.info({ model: agents.modelLabel }, 'model selected');
  const mcpServers = [...config.mcpServers, ...(agents.mcpServers ?? [])];
  const attached: AttachedMcpServers[] = [];
  const closeMcp = async () => {
    await Promise.all(attached.splice(0).map((servers) => servers.close()));
  };
  // SIGHUP and edits of POLICY_FILE swap the policy for new requests (see watch-policy.ts).
  const policy = watchPolicy({ path: config.policyFile, initial: agents.policy, logger });
  // SHADOW_POLICY_FILE: evaluated beside the policy for every call, never enforced; reloaded the same way.
  const shadow = shadowPolicy ? watchPolicy({ path: config.shadowPolicyFile, initial: shadowPolicy, logger, role: 'shadow' }) : undefined;
  if (shadowPolicy) logger.info({ shadowPolicyVersion: shadowPolicy.version, source: config.shadowPolicyFile }, 'shadow policy loaded: evaluated beside the policy, never enforced');

  // /healthz, /readyz and /metrics, on whichever server this mode has: Bolt's (HTTP mode), the
  // sandbox's, or a small one of its own (Socket Mode). Readiness asks Slack through the bot's client.
  let slackAuth: (() => Promise<unknown>) | undefined;
  const readiness = readinessCheck({ db: database.db, slackAuth: () => (slackAuth ? slackAuth() : Promise.reject(new Error('not started'))) });
  const health = healthRoutes({
    readiness,
    metrics: metricsRegistry(database.db),
    ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
    logger,
  });

  /** The agents and the Slack app, for whichever Slack the configuration points at. */
  const createBot = async (botConfig: Config) => {
    const agent = policy.follow(agents.agentFor(await slackWorkspaceIdentity(botConfig, logger)));
    shadow?.follow(agent);
    if (mcpServers.length > 0) {
      // The MCP client (its SDK) is loaded only by a bot that has MCP servers: ~80 ms of CPU at every other start.
      const { attachMcpServers } = await import('./mcp/attach-mcp-servers.js');
      attached.push(await attachMcpServers(agent, mcpServers, { logger }));
    }
    const listing = suspendedRunsRoute({ agents: [agent], ...(config.adminApiToken ? { adminToken: config.adminApiToken } : {}), logger });
    const httpMode = !botConfig.slack.appToken;
    const slack = createSlackApp({
      config: { ...botConfig.slack, port: botConfig.port, ...(botConfig.httpHost ? { host: botConfig.httpHost } : {}) },
      agent,
      db: database.db,
      logger,
      sweepIntervalMs: config.timings.sweepIntervalMs,
      cardRepairAfterMs: config.timings.cardRepairAfterMs,
      ...(httpMode
        ? {
            customRoutes: [
              { path: '/agents/:agentId/suspended-runs', method: ['GET'], handler: (req, res) => void listing(req, res) },
              ...['/healthz', '/readyz', '/metrics'].map((path) => ({
                path,
                method: ['GET', 'HEAD'],
                handler: (req: IncomingMessage, res: ServerResponse) => void health(req, res),
              })),
            ],
          }
        : {}),
    });
    slackAuth = () => slack.app.client.auth.test();
    return { slack, listing, httpMode };
  };

  if (!slackConfigured) {
    // No workspace configured: a local Slack (the sandbox) on PORT with the unchanged bot behind it.
    let listing: ReturnType<typeof suspendedRunsRoute> | undefined;
    const running = await runWithSandbox({
      config,
      logger,
      modelLabel: agents.modelLabel,
      examples: agents.examples,
      stateFile: join(config.dataDir, 'sandbox.json'),
      extraRoutes: async (req, res) => (await health(req, res)) || (listing ? listing(req, res) : false),
      createBot: async (botConfig) => {
        const bot = await createBot(botConfig);
        listing = bot.listing;
        return bot.slack;
      },
    });
    // The address to open, alone on its line where a person reads the logs (the JSON line has it as `url`).
    if (logFormatFor(config.logFormat) === 'pretty') process.stdout.write(`\n    ${running.sandbox.url}\n\n`);
    return {
      readiness,
      async stop() {
        policy.close();
        shadow?.close();
        await running.stop();
        await closeMcp();
        await database.close();
      },
      closeDatabase: () => database.close(),
    };
  }

  const { slack, listing, httpMode } = await createBot(config);
  const started = await slack.start();
  logger.info({ port: started.port, mode: httpMode ? 'http' : 'socket' }, 'Slack app started');
  // Bolt serves HTTP only in HTTP mode; in Socket Mode the health check and listing get their own server.
  const server: Server | undefined = httpMode
    ? undefined
    : createServer((req, res) => {
        void (async () => {
          if ((await health(req, res)) || (await listing(req, res))) return;
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'not_found' }));
        })();
      });
  if (server) {
    await new Promise<void>((resolve) => server.listen(config.port, resolve));
    logger.info({ port: (server.address() as AddressInfo).port }, 'health and metrics server listening');
  }
  return {
    readiness,
    async stop() {
      policy.close();
      shadow?.close();
      // Socket Mode: disconnecting stops new work; the probe server stays up (answering not ready) until the work in flight is done.
      await slack.stop();
      if (server) {
        server.closeIdleConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await closeMcp();
      await database.close();
    },
    closeDatabase: () => database.close(),
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
