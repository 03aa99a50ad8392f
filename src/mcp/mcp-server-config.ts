import { z } from 'zod';
import { mcpServerNamePattern } from '../approvals/mcp-tool-name.js';

const stringMap = (what: string) => z.record(z.string(), z.string({ error: `${what} values must be strings` }), { error: `must be a map of ${what}` });

const common = {
  /** The id of the agent (the top-level one or a sub-agent) whose tools these become; default the top-level agent. */
  agent: z.string({ error: 'must be an agent id' }).min(1).optional(),
  /** How long one call may take, elicitations included (ms); default 10 minutes. */
  timeoutMs: z.number({ error: 'must be a number of milliseconds' }).int().min(100).max(86_400_000).optional(),
};

const stdioServer = z.strictObject({
  ...common,
  command: z.string({ error: 'must be the command that starts the server' }).min(1, { error: 'must not be empty' }),
  args: z.array(z.string(), { error: 'must be a list of strings' }).optional(),
  /** Added to the few variables a server inherits (PATH, HOME, …): the bot's own secrets are not passed on. */
  env: stringMap('environment variables').optional(),
  cwd: z.string().min(1).optional(),
});

const httpServer = z.strictObject({
  ...common,
  url: z
    .string({ error: 'must be the server\'s Streamable HTTP URL' })
    .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), { error: 'must be an http:// or https:// URL' }),
  headers: stringMap('HTTP headers').optional(),
});

export type StdioServerConfig = z.output<typeof stdioServer>;
export type HttpServerConfig = z.output<typeof httpServer>;
/** One MCP server: started as a child process (stdio) or reached over Streamable HTTP. */
export type McpServerConfig = (StdioServerConfig & { name: string; transport: 'stdio' }) | (HttpServerConfig & { name: string; transport: 'http' });

const serverEntry = z.unknown().transform((value, ctx): StdioServerConfig | HttpServerConfig => {
  const isMap = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (isMap && 'url' in value && 'command' in value) {
    ctx.addIssue({ code: 'custom', message: 'has both "command" (stdio) and "url" (Streamable HTTP); give one' });
    return z.NEVER;
  }
  const schema = isMap && 'url' in value ? httpServer : stdioServer;
  if (!isMap || (!('url' in value) && !('command' in value))) {
    ctx.addIssue({ code: 'custom', message: 'must be a map with "command" (a stdio server) or "url" (a Streamable HTTP server)' });
    return z.NEVER;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message });
  return z.NEVER;
});

/**
 * What MCP_SERVERS' file holds and what an agents module exports as `mcpServers`: a map from
 * server name to its settings, the shape other MCP clients use (`{ "mcpServers": { … } }` in a
 * file). The name is the prefix of its tools' names (`github__create_issue`).
 */
export const mcpServersSchema = z.record(
  z.string().regex(mcpServerNamePattern, {
    error: (issue) => `server name ${JSON.stringify(issue.input)} must be letters, digits, "-" and single "_" (it prefixes tool names as <server>__<tool>)`,
  }),
  serverEntry,
  { error: 'must be a map from server name to its settings' },
);

export type McpServersInput = z.input<typeof mcpServersSchema>;

/** The map, as a list of named servers. */
export function toServerList(map: z.output<typeof mcpServersSchema>): McpServerConfig[] {
  return Object.entries(map).map(([name, entry]) =>
    'url' in entry ? { ...entry, name, transport: 'http' as const } : { ...entry, name, transport: 'stdio' as const },
  );
}

/** `mcpServers.github.command: must not be empty`, as a field path people can find in their file. */
export function issueText(issue: z.core.$ZodIssue, prefix: string): string {
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  // A bad key reports its own problem one level down.
  const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  return `${path}: ${message}`;
}
