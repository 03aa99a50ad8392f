import type { Agent } from './agent/agent.js';
import type { GroupResolver } from './approvals/group-resolver.js';
import type { Policy } from './approvals/policy-types.js';
import type { McpServerConfig } from './mcp/mcp-server-config.js';

/** Who the bot is in a workspace (never an approver) and how that workspace's user groups resolve. */
export interface WorkspaceIdentity {
  botUserId: string;
  resolveGroupMembers: GroupResolver;
}

/**
 * What the composition root needs from whatever supplies the agents. Only the
 * demo does today (src/demo/start-demo.ts); agents of one's own would supply the
 * same, and nothing else in start-bot.ts would change.
 */
export interface BotAgents {
  /** The top-level agent for one workspace; the Slack layer talks to nothing else. */
  agentFor(workspace: WorkspaceIdentity): Agent;
  /** The policy every call is decided under, and where it came from, for the start-up log. */
  policy: Policy;
  policySource: string;
  /** What the logs and the sandbox call the model. */
  modelLabel: string;
  /** MCP servers the supplier brings (an agents module's `mcpServers`), besides MCP_SERVERS'. */
  mcpServers?: McpServerConfig[];
  /** Requests the agent understands, which the sandbox offers under its composer ("Try: …"), without the mention. */
  examples: string[];
}
