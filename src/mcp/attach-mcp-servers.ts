import type { Agent } from '../agent/agent.js';
import type { Logger } from '../logger.js';
import type { Tool } from '../agent/tool.js';
import { McpConnection, type McpConnectionOptions } from './mcp-connection.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { mcpTools, type AbandonedQuestion, type WaitingCalls } from './mcp-tools.js';

export interface AttachedMcpServers {
  /** One per server, by name: its status and tools (for health checks and tests). */
  readonly connections: ReadonlyMap<string, McpConnection>;
  /** Closes every connection (stdio servers are stopped); their tools stay listed but fail. */
  close(): Promise<void>;
}

export class McpConfigError extends Error {
  readonly code = 'MCP_CONFIG_INVALID';
  constructor(
    message: string,
    readonly server: string,
  ) {
    super(message);
    this.name = 'McpConfigError';
  }
}

/**
 * Connects each server and gives its tools to its agent (`agent`, an id in `root`'s tree;
 * default `root`) as the tool group named after the server, updated whenever the server lists
 * them again. Waits for each server's first attempt only (at most `firstAttemptWaitMs`, 10 s):
 * one that is down does not hold the bot up, it is reached in the background (see
 * McpConnection) and its tools appear then.
 */
export async function attachMcpServers(
  root: Agent,
  servers: readonly McpServerConfig[],
  options: { logger: Logger; reconnect?: McpConnectionOptions['reconnect']; firstAttemptWaitMs?: number },
): Promise<AttachedMcpServers> {
  const connections = new Map<string, McpConnection>();
  const waiting: WaitingCalls = new Map();
  let closing = false;
  // A question whose call ended cannot be answered any more: its request is cancelled with the reason (which the
  // model hears, and its card shows once redrawn). Not while closing: after a restart an answer reports that instead.
  const abandoned = (question: AbandonedQuestion) => {
    if (closing) return;
    void cancelAbandoned(root, question, options.logger).catch((error: unknown) =>
      options.logger.warn({ err: error, runId: question.runId, toolCallId: question.toolCallId }, 'MCP question whose call ended could not be cancelled'),
    );
  };
  const targets = servers.map((server) => {
    const agent = server.agent === undefined ? root : findInTree(root, server.agent);
    if (!agent) throw new McpConfigError(`MCP server ${server.name}: no agent "${server.agent}" (agents: ${idsInTree(root).join(', ')})`, server.name);
    if (connections.has(server.name)) throw new McpConfigError(`MCP server ${server.name} is configured twice`, server.name);
    const log = options.logger.child({ mcpServer: server.name, agentId: agent.id });
    const connection = new McpConnection(server, {
      logger: options.logger,
      ...(options.reconnect ? { reconnect: options.reconnect } : {}),
      onTools: (definitions) => agent.setToolGroup(server.name, withoutClashes(agent, server.name, mcpTools(connection, definitions, waiting, log, abandoned), log)),
    });
    connections.set(server.name, connection);
    // Known by name from the start, so the policy treats a call to it as an MCP tool while it is away.
    agent.setToolGroup(server.name, {});
    return connection;
  });
  // A server that neither answers nor fails (a hung process) holds start-up up for at most this long.
  const wait = options.firstAttemptWaitMs ?? 10_000;
  await Promise.all(
    targets.map(async (connection) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([connection.start(), new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]);
      clearTimeout(timer);
    }),
  );
  return {
    connections,
    close: async () => {
      closing = true;
      await Promise.all(targets.map((connection) => connection.close()));
    },
  };
}

/** A server's tool whose name the agent already has for a tool of its own is left out: the agent's own tool stays what the model calls. */
function withoutClashes(agent: Agent, server: string, tools: Record<string, Tool>, log: Logger): Record<string, Tool> {
  const kept: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const existing = Object.hasOwn(agent.tools, name) ? agent.tools[name] : undefined;
    if (existing && existing.mcp?.server !== server) log.warn({ tool: name }, 'MCP tool left out: the agent has a tool of its own by that name');
    else kept[name] = tool;
  }
  return kept;
}

async function cancelAbandoned(root: Agent, question: AbandonedQuestion, logger: Logger): Promise<void> {
  const { runs } = await root.listSuspendedRuns({
    ...(question.threadId ? { threadId: question.threadId } : {}),
    ...(question.resourceId ? { resourceId: question.resourceId } : {}),
  });
  const call = runs.flatMap((run) => run.toolCalls).find((c) => c.runId === question.runId && c.toolCallId === question.toolCallId);
  if (!call) return;
  const reason = question.reason.charAt(0).toUpperCase() + question.reason.slice(1);
  const cancelled = await root.cancelRequest(call.actionId, reason);
  logger.info({ runId: question.runId, toolCallId: question.toolCallId, actionId: call.actionId }, 'MCP question cancelled: its call ended before an answer');
  // The run goes on without this process's front end watching it: its answer is kept, and the Slack sweep posts it.
  await cancelled?.stream.consumeStream();
}

function findInTree(agent: Agent, id: string): Agent | undefined {
  if (agent.id === id) return agent;
  for (const sub of Object.values(agent.subAgents)) {
    const found = findInTree(sub, id);
    if (found) return found;
  }
  return undefined;
}

function idsInTree(agent: Agent): string[] {
  return [agent.id, ...Object.values(agent.subAgents).flatMap(idsInTree)];
}
