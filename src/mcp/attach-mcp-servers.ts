import type { Agent } from '../agent/agent.js';
import type { Logger } from '../logger.js';
import type { Tool } from '../agent/tool.js';
import { McpConnection, type McpConnectionOptions } from './mcp-connection.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { mcpTools, pinnedDefinition, type AbandonedQuestion, type WaitingCalls } from './mcp-tools.js';
import type { McpToolDefinition } from './mcp-connection.js';
import { mcpToolName } from '../approvals/mcp-tool-name.js';
import { definitionChanges, type ToolDefinitionSnapshot } from '../approvals/tool-definition.js';
import { McpConfigError } from './mcp-config-error.js';

export interface AttachedMcpServers {
  /** One per server, by name: its status and tools (for health checks and tests). */
  readonly connections: ReadonlyMap<string, McpConnection>;
  /** Closes every connection (stdio servers are stopped); their tools stay listed but fail. */
  close(): Promise<void>;
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
    const path = server.agent === undefined ? [root.id] : pathInTree(root, server.agent);
    const agent = path ? findInTree(root, path.at(-1)!) : undefined;
    if (!path || !agent) throw new McpConfigError(`MCP server ${server.name}: no agent "${server.agent}" (agents: ${idsInTree(root).join(', ')})`, server.name);
    if (connections.has(server.name)) throw new McpConfigError(`MCP server ${server.name} is configured twice`, server.name);
    const log = options.logger.child({ mcpServer: server.name, agentId: agent.id });
    const declared = new DeclaredTools(root, server.name, path, log, () => closing);
    const connection = new McpConnection(server, {
      logger: options.logger,
      ...(options.reconnect ? { reconnect: options.reconnect } : {}),
      onTools: (definitions) => {
        if (!declared.changed(definitions)) return;
        agent.setToolGroup(server.name, withoutClashes(agent, server.name, mcpTools(connection, definitions, waiting, log, abandoned), log));
      },
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

/**
 * The definitions a server last declared, by tool: a listing that declares the same ones changes
 * nothing (approved MCP calls re-list their server before they run, so most listings are the
 * same). A listing that differs is logged, tool by tool, with what changed, and ends every
 * remembered approval given for a definition it no longer declares (the first listing too: the
 * server may have changed while the bot was stopped). Calls asked for or approved under the old
 * definition are asked again when they are to run (see agent/bound-call.ts).
 */
class DeclaredTools {
  private last: Map<string, { digest: string; definition: ToolDefinitionSnapshot }> | undefined;

  constructor(
    private readonly root: Agent,
    private readonly server: string,
    private readonly path: readonly string[],
    private readonly log: Logger,
    private readonly closing: () => boolean,
  ) {}

  changed(definitions: readonly McpToolDefinition[]): boolean {
    const now = new Map(definitions.map((d) => [d.name, pinnedDefinition(d)]));
    const before = this.last;
    this.last = now;
    if (before && before.size === now.size && [...now].every(([name, pin]) => before.get(name)?.digest === pin.digest)) return false;
    if (before) {
      for (const [name, pin] of now) {
        const old = before.get(name);
        if (old && old.digest !== pin.digest) {
          this.log.warn({ tool: name, changes: definitionChanges(old.definition, pin.definition) }, 'MCP tool definition changed: its calls are asked again and remembered approvals of the old one end');
        }
      }
      const gone = [...before.keys()].filter((name) => !now.has(name));
      if (gone.length) this.log.warn({ tools: gone }, 'MCP tools no longer offered by the server: remembered approvals of them end');
    }
    if (!this.closing()) void this.endReplaced(now);
    return true;
  }

  private async endReplaced(now: Map<string, { digest: string }>): Promise<void> {
    try {
      const ended = await this.root.endReplacedToolApprovals({
        path: this.path,
        prefix: `${this.server}__`,
        current: [...now].map(([name, pin]) => ({ toolName: mcpToolName(this.server, name), digest: pin.digest })),
        reason: `the MCP server ${this.server} changed or dropped the tool`,
      });
      if (ended.length) this.log.warn({ rememberedGrantIds: ended.map((g) => g.id), tools: [...new Set(ended.map((g) => g.tool_name))] }, 'remembered approvals of replaced MCP tool definitions ended');
    } catch (error) {
      // A use of one is still refused: it must match the tool's definition digest as now declared.
      this.log.warn({ err: error }, 'remembered approvals of replaced MCP tool definitions could not be ended');
    }
  }
}

/** The agent ids from `root` down to the agent `id`, or undefined when the tree has none. */
function pathInTree(agent: Agent, id: string): string[] | undefined {
  if (agent.id === id) return [agent.id];
  for (const sub of Object.values(agent.subAgents)) {
    const found = pathInTree(sub, id);
    if (found) return [agent.id, ...found];
  }
  return undefined;
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
