import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { errorMessage } from '../error-message.js';
import { issueText, mcpServersSchema, toServerList, type McpServerConfig } from './mcp-server-config.js';

const fileSchema = z.strictObject({ mcpServers: mcpServersSchema }, { error: 'must be a map with "mcpServers"' });

/**
 * Reads MCP_SERVERS' file (`.json`, `.yaml`, `.yml`): `{ mcpServers: { <name>: { command, args,
 * env, cwd } | { url, headers }, … } }`. `${NAME}` in `env` and `headers` values is replaced by
 * the variable from `env`, so tokens stay out of the file. Throws an Error whose message names
 * the file and the bad entry (config.ts turns it into a ConfigError for MCP_SERVERS).
 */
export function readMcpServersFile(path: string, env: Record<string, string | undefined>): McpServerConfig[] {
  const ext = extname(path).toLowerCase();
  if (!['.json', '.yaml', '.yml'].includes(ext)) throw new Error(`${path}: unsupported file type "${ext}" (use .json, .yaml or .yml)`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`${path}: ${code === 'ENOENT' ? 'file not found' : `file could not be read (${errorMessage(error)})`}`);
  }
  let data: unknown;
  try {
    data = ext === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`${path}: ${ext === '.json' ? 'JSON' : 'YAML'} syntax error: ${errorMessage(error)}`);
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues.map((i) => issueText(i, '')).join('; ')}`);
  return toServerList(parsed.data.mcpServers).map((server) => expandVariables(server, path, env));
}

function expandVariables(server: McpServerConfig, path: string, env: Record<string, string | undefined>): McpServerConfig {
  const expand = (field: 'env' | 'headers', values: Record<string, string> | undefined) =>
    values &&
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => [
        key,
        value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
          const found = env[name];
          if (found === undefined) throw new Error(`${path}: mcpServers.${server.name}.${field}.${key}: variable ${name} is not set`);
          return found;
        }),
      ]),
    );
  if (server.transport === 'stdio') return server.env ? { ...server, env: expand('env', server.env)! } : server;
  return server.headers ? { ...server, headers: expand('headers', server.headers)! } : server;
}
