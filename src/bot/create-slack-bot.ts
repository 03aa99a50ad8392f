import type { RequestListener } from 'node:http';
import type { Agent } from '../agent/agent.js';
import { definePolicy } from '../approvals/define-policy.js';
import type { Policy } from '../approvals/policy-types.js';
import type { PolicyInput } from '../approvals/policy-schema.js';
import type { Database } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { silentLogger, type Logger } from '../logger.js';
import { createSlackApp, type SlackApp } from '../slack/app.js';
import { slackGroupResolver, slackWebClient } from '../slack/transport/slack-web-client.js';
import { attachMcpServers, type AttachedMcpServers } from '../mcp/attach-mcp-servers.js';
import { issueText, mcpServersSchema, toServerList, type McpServersInput } from '../mcp/mcp-server-config.js';
import { warnUnsatisfiable } from '../approvals/unsatisfiable-rules.js';

export interface SlackBotOptions {
  /** The top-level agent mentions reach (its sub-agents come with it), or `{ default: agent }` as an agents module exports it. */
  agents: Agent | { default: Agent };
  /** The approval policy; without one, the agent's own (or approval only where its tools ask). */
  policy?: Policy | PolicyInput;
  /** A policy tried beside `policy` and never enforced: differences are audited as `shadow-diff` (see SHADOW_POLICY_FILE). */
  shadowPolicy?: Policy | PolicyInput;
  /** Where runs and the bot's Slack bookkeeping are kept (openDatabase); start() applies the migrations. */
  database: Database;
  slack: {
    /** The bot token (xoxb-…). */
    token: string;
    /** HTTP mode: requests to POST /slack/events are verified with it. */
    signingSecret?: string;
    /** Socket Mode instead of HTTP (xapp-…). */
    appToken?: string;
    /** Another Web API base URL (a test's fake Slack). */
    apiUrl?: string;
    /** Slack's AI-app conventions (status while waiting for approval, streamed answers); see SLACK_ASSISTANT. Default off. */
    assistant?: 'auto' | 'on' | 'off';
  };
  logger?: Logger;
  /** HTTP mode: listen on this port; without it, mount `handler` in a server of your own. */
  port?: number;
  timings?: { runLeaseMs?: number; sweepIntervalMs?: number; cardRepairAfterMs?: number };
  /** How many runs this process works on at once (see AgentConfig.maxConcurrentRuns); default 32. */
  maxConcurrentRuns?: number;
  /** MCP servers whose tools the agents get (as an agents module's `mcpServers`): connected by start(), closed by stop(). */
  mcpServers?: McpServersInput;
}

export interface SlackBot {
  /** Applies migrations, checks the token, attaches the agent to the database and the workspace, and starts (listening, in HTTP mode with a port). */
  start(): Promise<{ port?: number; botUserId: string }>;
  /** Stops taking requests, waits for acknowledged work, stops the sweeps. The database stays open: it is the caller's. */
  stop(): Promise<void>;
  /**
   * HTTP mode: the request listener for Slack's requests (events and interactivity, at the
   * path your Slack app's request URLs point to), verified with the signing secret. Usable
   * once start() resolved; undefined in Socket Mode.
   */
  readonly handler: RequestListener | undefined;
}

/**
 * The Slack front end as a library: the same bot `npm start` runs, serving
 * your agent, in your process. Host it on its own port, inside your HTTP
 * server (`handler`), or over Socket Mode.
 */
export function createSlackBot(options: SlackBotOptions): SlackBot {
  const agent = 'default' in options.agents ? options.agents.default : options.agents;
  const logger = options.logger ?? silentLogger;
  const asPolicy = (p: Policy | PolicyInput | undefined) => (p === undefined ? undefined : 'version' in p ? (p as Policy) : definePolicy(p));
  const policy = asPolicy(options.policy);
  const shadowPolicy = asPolicy(options.shadowPolicy);
  const slackConfig = {
    botToken: options.slack.token,
    ...(options.slack.signingSecret ? { signingSecret: options.slack.signingSecret } : {}),
    ...(options.slack.appToken ? { appToken: options.slack.appToken } : {}),
    ...(options.slack.apiUrl ? { apiUrl: options.slack.apiUrl } : {}),
  };
  if (!slackConfig.appToken && !slackConfig.signingSecret) {
    throw new TypeError('createSlackBot: slack.signingSecret is required in HTTP mode (or give slack.appToken for Socket Mode)');
  }
  const parsedServers = mcpServersSchema.safeParse(options.mcpServers ?? {});
  if (!parsedServers.success) throw new TypeError(`createSlackBot: ${parsedServers.error.issues.map((i) => issueText(i, 'mcpServers')).join('; ')}`);
  const mcpServers = toServerList(parsedServers.data);
  if (policy) warnUnsatisfiable(logger, policy);
  let slack: SlackApp | undefined;
  let mcp: AttachedMcpServers | undefined;
  return {
    async start() {
      await migrate(options.database.db);
      const client = slackWebClient(slackConfig, logger);
      const auth = await client.auth.test();
      if (!auth.user_id) throw new Error('auth.test returned no bot user id');
      agent.attach({
        storage: options.database,
        logger,
        botUserId: auth.user_id,
        resolveGroupMembers: slackGroupResolver(client),
        ...(policy ? { policy } : {}),
        ...(shadowPolicy ? { shadowPolicy } : {}),
        ...(options.timings?.runLeaseMs !== undefined ? { runLeaseMs: options.timings.runLeaseMs } : {}),
        ...(options.maxConcurrentRuns !== undefined ? { maxConcurrentRuns: options.maxConcurrentRuns } : {}),
      });
      if (mcpServers.length > 0) mcp = await attachMcpServers(agent, mcpServers, { logger });
      slack = createSlackApp({
        config: { ...slackConfig, port: options.port ?? 0 },
        agent,
        db: options.database.db,
        logger,
        botUserId: auth.user_id,
        listen: options.port !== undefined,
        ...(options.slack.assistant ? { assistant: options.slack.assistant } : {}),
        ...(options.timings?.sweepIntervalMs !== undefined ? { sweepIntervalMs: options.timings.sweepIntervalMs } : {}),
        ...(options.timings?.cardRepairAfterMs !== undefined ? { cardRepairAfterMs: options.timings.cardRepairAfterMs } : {}),
      });
      return slack.start();
    },
    async stop() {
      await slack?.stop();
      await mcp?.close();
    },
    get handler() {
      return slack?.handler;
    },
  };
}
