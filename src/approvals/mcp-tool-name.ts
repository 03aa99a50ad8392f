import { createHash } from 'node:crypto';

/** Who an MCP tool is: its server's configured name and the tool's own name on that server. */
export interface McpToolIdentity {
  readonly server: string;
  readonly tool: string;
  /** The server's `readOnlyHint` annotation: a hint from the server, never proof. */
  readonly readOnlyHint?: boolean;
}

/**
 * Server names become the prefix of the tool names the model sees, so they may hold only
 * what providers accept in a tool name, and no `__` (which separates server from tool).
 */
export const mcpServerNamePattern = /^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$/;

const SEPARATOR = '__';
const MAX_TOOL_NAME = 64;

/**
 * The name the model calls an MCP tool by: `<server>__<tool>` (`github__create_issue`), with
 * characters providers refuse (MCP allows `.` and `/`) turned into `_`. A name longer than
 * providers accept (64) is cut and ends in a short hash of the full name, so it stays unique.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${server}${SEPARATOR}${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/** The server a model-facing tool name belongs to, among `servers`; undefined for any other name. */
export function mcpServerOf(toolName: string, servers: Iterable<string>): string | undefined {
  for (const server of servers) if (toolName.startsWith(`${server}${SEPARATOR}`)) return server;
  return undefined;
}

/**
 * A policy key that names MCP tools: `server.*` (every tool of the server) or `server.tool`.
 * Native tool names cannot hold a `.`, so such a key never names one.
 */
export function parseMcpPattern(key: string): { server: string; tool: string | '*' } | undefined {
  const dot = key.indexOf('.');
  if (dot <= 0) return undefined;
  const server = key.slice(0, dot);
  const tool = key.slice(dot + 1);
  if (!mcpServerNamePattern.test(server) || tool === '') return undefined;
  return { server, tool };
}

/**
 * The policy keys that may describe an MCP tool, most specific first: the name the model
 * calls (`github__create_issue`), then `github.create_issue` (the tool's name on its server),
 * then `github.*`.
 */
export function policyKeysFor(identity: McpToolIdentity): string[] {
  return [mcpToolName(identity.server, identity.tool), `${identity.server}.${identity.tool}`, `${identity.server}.*`];
}
