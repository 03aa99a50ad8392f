import type { Agent } from '../agent/agent.js';
import type { Logger } from '../logger.js';
import type { Tool } from '../agent/tool.js';
import { McpConnection, type McpConnectionOptions } from './mcp-connection.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { mcpTools, type WaitingCalls } from './mcp-tools.js';

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
  const targets = servers.map((server) => {
    const agent = server.agent === undefined ? root : findInTree(root, server.agent);
    if (!agent) throw new McpConfigError(`MCP server ${server.name}: no agent "${server.agent}" (agents: ${idsInTree(root).join(', ')})`, server.name);
    if (connections.has(server.name)) throw new McpConfigError(`MCP server ${server.name} is configured twice`, server.name);
    const log = options.logger.child({ mcpServer: server.name, agentId: agent.id });
    const connection = new McpConnection(server, {
      logger: options.logger,
      ...(options.reconnect ? { reconnect: options.reconnect } : {}),
      onTools: (definitions) => agent.setToolGroup(server.name, withoutClashes(agent, server.name, mcpTools(connection, definitions, waiting, log), log)),
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
