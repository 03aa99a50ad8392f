import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Agent } from '../agent/agent.js';
import { definePolicy } from '../approvals/define-policy.js';
import { PolicyError } from '../approvals/policy-error.js';
import type { Policy, PolicyInput } from '../approvals/policy-schema.js';
import type { BotAgents } from '../bot-agents.js';
import type { Database } from '../db/database.js';
import { errorMessage } from '../error-message.js';
import type { Logger } from '../logger.js';
import { AgentsModuleError } from './agents-module-error.js';
import { issueText, mcpServersSchema, toServerList, type McpServerConfig } from '../mcp/mcp-server-config.js';

export interface AgentsModuleOptions {
  /** AGENTS_MODULE as configured: a path to a TypeScript or JavaScript module, relative to the working directory. */
  path: string;
  /** Where runs are kept (the bot's database). */
  database: Database;
  /** A policy from POLICY_FILE, which wins over the module's own. */
  policyFile?: { path: string; policy: Policy } | undefined;
  logger: Logger;
  runLeaseMs: number;
}

/**
 * The agents a team brings: a module exporting its top-level agent (the one
 * mentions reach; sub-agents come with it, as usual) as `default` or `agent`,
 * and optionally `policy` (a policy, or what definePolicy takes), `mcpServers`
 * (MCP servers whose tools its agents get, as in MCP_SERVERS' file) and `examples`
 * (requests the agent understands, offered in the sandbox). The agent
 * may be defined without storage: the bot attaches its own database, logger
 * and workspace. A module that fails to load, or exports anything else, stops
 * start-up with a message that names the file and what is wrong.
 */
export async function loadAgentsModule(options: AgentsModuleOptions): Promise<BotAgents> {
  const exports = await importModule(options.path);
  const agent = agentOf(options.path, exports);
  const modulePolicy = policyOf(options.path, exports.policy);
  const mcpServers = mcpServersOf(options.path, exports.mcpServers);
  const examples = examplesOf(options.path, exports.examples);
  const policy = options.policyFile?.policy ?? modulePolicy;
  const { database, logger, runLeaseMs } = options;
  return {
    agentFor: (workspace) => agent.attach({ storage: database, logger, runLeaseMs, ...workspace, ...(policy ? { policy } : {}) }),
    policy: policy ?? agent.policy,
    policySource: options.policyFile?.path ?? (modulePolicy ? `${options.path} (export policy)` : `${options.path} (the agent's own)`),
    modelLabel: `${agent.model.provider}/${agent.model.modelId}`,
    mcpServers,
    examples,
  };
}

async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(isAbsolute(path) ? path : resolve(process.cwd(), path)).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    // Plain `node` (the production start) cannot import TypeScript by itself; tsx's loader can.
    if ((error as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION' && /\.[cm]?ts$/.test(path)) {
      const { register } = await import('tsx/esm/api');
      register();
      try {
        return (await import(url)) as Record<string, unknown>;
      } catch (retryError) {
        throw new AgentsModuleError(path, `could not be loaded: ${errorMessage(retryError)}`, { cause: retryError });
      }
    }
    throw new AgentsModuleError(path, `could not be loaded: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * The module's agent, told apart by what an Agent does rather than by its
 * class: a module importing the package by name may hold an Agent class of
 * another copy of it (the built one) than the bot's.
 */
function agentOf(path: string, exports: Record<string, unknown>): Agent {
  const candidates = [exports.default, exports.agent].filter((value) => value !== undefined);
  const agent = candidates.find(isAgent);
  if (agent) return agent;
  const found = Object.keys(exports).length === 0 ? 'no exports' : `exports ${Object.keys(exports).join(', ')}`;
  const what = candidates.length > 0 ? `; its ${exports.default !== undefined ? 'default export' : '`agent` export'} is ${describe(candidates[0])}` : '';
  throw new AgentsModuleError(path, `must export its top-level Agent as \`default\` or \`agent\` (found ${found}${what})`);
}

function isAgent(value: unknown): value is Agent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === 'string' && typeof v.stream === 'function' && typeof v.attach === 'function' && typeof v.decideToolCall === 'function';
}

function policyOf(path: string, value: unknown): Policy | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) throw new AgentsModuleError(path, `its \`policy\` export must be a policy (definePolicy) or a policy object, not ${describe(value)}`);
  try {
    // A policy from definePolicy carries its version; a plain object is validated the same way.
    return 'version' in value && 'tools' in value && 'defaults' in value ? (value as Policy) : definePolicy(value as PolicyInput);
  } catch (error) {
    if (error instanceof PolicyError) throw new AgentsModuleError(path, `its \`policy\` export is not valid: ${error.message}`, { cause: error });
    throw error;
  }
}

function mcpServersOf(path: string, value: unknown): McpServerConfig[] {
  if (value === undefined) return [];
  const parsed = mcpServersSchema.safeParse(value);
  if (!parsed.success) {
    throw new AgentsModuleError(path, `its \`mcpServers\` export is not valid: ${parsed.error.issues.map((i) => issueText(i, 'mcpServers')).join('; ')}`);
  }
  return toServerList(parsed.data);
}

/** At most this many examples, each a line of at most 200 characters: they are buttons under the composer. */
const MAX_EXAMPLES = 10;

/** Without an `examples` export the sandbox offers a question any agent can answer. */
function examplesOf(path: string, value: unknown): string[] {
  if (value === undefined) return ['what can you do?'];
  const valid =
    Array.isArray(value) &&
    value.length <= MAX_EXAMPLES &&
    value.every((e) => typeof e === 'string' && e.trim() !== '' && e.length <= 200 && !e.includes('\n'));
  if (!valid) {
    throw new AgentsModuleError(path, `its \`examples\` export must be a list of at most ${MAX_EXAMPLES} requests, each one line of at most 200 characters (found ${describe(value)})`);
  }
  return (value as string[]).map((e) => e.trim());
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object with ${Object.keys(value).join(', ') || 'no keys'}`;
  return `a ${typeof value}`;
}
