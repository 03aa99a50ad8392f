import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Agent } from '../agent/agent.js';
import { useProviders, type ProviderSettings } from '../agent/model.js';
import { definePolicy } from '../approvals/define-policy.js';
import { PolicyError } from '../approvals/policy-error.js';
import type { Policy } from '../approvals/policy-types.js';
import type { PolicyInput } from '../approvals/policy-schema.js';
import type { BotAgents } from '../bot-agents.js';
import type { Database } from '../db/database.js';
import { errorMessage } from '../error-message.js';
import type { Logger } from '../logger.js';
import { AgentsModuleError } from './agents-module-error.js';
import { issueText, mcpServersSchema, toServerList, type McpServerConfig } from '../mcp/mcp-server-config.js';

interface AgentsModuleOptions {
  /** AGENTS_MODULE as configured: a path to a TypeScript or JavaScript module, relative to the working directory. */
  path: string;
  /** Where runs are kept (the bot's database). */
  database: Database;
  /** A policy from POLICY_FILE, which wins over the module's own. */
  policyFile?: { path: string; policy: Policy } | undefined;
  logger: Logger;
  runLeaseMs: number;
  /** MAX_CONCURRENT_RUNS (see AgentConfig.maxConcurrentRuns); the runtime's default when absent. */
  maxConcurrentRuns?: number;
  /**
   * The configured providers, for the module's agents whose model is a `provider/model` string
   * (see useHostProviders). Without them such a model uses the AI SDK's defaults.
   */
  providers?: ProviderSettings;
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
  return (await importAgentsModule(options)).serve(options.database);
}

/** An agents module loaded and checked; `serve` gives its agent the bot's database. */
interface ImportedAgentsModule {
  serve(database: Database): BotAgents;
}

/**
 * The first half of loadAgentsModule, which needs no database: the module imported, its exports
 * checked and its string models given the providers, so that everything wrong with it stops
 * start-up before the database is opened.
 */
export async function importAgentsModule(options: Omit<AgentsModuleOptions, 'database'>): Promise<ImportedAgentsModule> {
  const exports = await importModule(options.path);
  const agent = agentOf(options.path, exports);
  if (options.providers) useHostProviders(options.path, agent, options.providers);
  const modulePolicy = policyOf(options.path, exports.policy);
  const mcpServers = mcpServersOf(options.path, exports.mcpServers);
  const examples = examplesOf(options.path, exports.examples);
  const policy = options.policyFile?.policy ?? modulePolicy;
  const { logger, runLeaseMs, maxConcurrentRuns } = options;
  return {
    serve: (database) => ({
      agentFor: (workspace) => agent.attach({ storage: database, logger, runLeaseMs, ...(maxConcurrentRuns ? { maxConcurrentRuns } : {}), ...workspace, ...(policy ? { policy } : {}) }),
      policy: policy ?? agent.policy,
      policySource: options.policyFile?.path ?? (modulePolicy ? `${options.path} (export policy)` : `${options.path} (the agent's own)`),
      modelLabel: `${agent.model.provider}/${agent.model.modelId}`,
      mcpServers,
      examples,
    }),
  };
}

/** TypeScript, by file name: what plain node (before type stripping) cannot import by itself. */
const TYPESCRIPT = /\.[cm]?ts$/;

/**
 * Whether this process already loads TypeScript: this very file is then TypeScript (`npm start`
 * runs the source under tsx's loader; tests run it under vitest), and so is anything it imports.
 */
const loaderPresent = import.meta.url.endsWith('.ts');

async function importModule(path: string): Promise<Record<string, unknown>> {
  const file = isAbsolute(path) ? path : resolve(process.cwd(), path);
  const url = pathToFileURL(file).href;
  let namespace: Record<string, unknown>;
  try {
    namespace = TYPESCRIPT.test(file) && !loaderPresent ? await importTypeScript(path, url) : ((await import(url)) as Record<string, unknown>);
  } catch (error) {
    if (error instanceof AgentsModuleError) throw error;
    throw new AgentsModuleError(path, `could not be loaded: ${loadProblem(error, file)}`, { cause: error });
  }
  return exportsOf(namespace);
}

/**
 * A TypeScript module under plain node (`npm run start:prod`, the package's `slack-approval-bot`
 * command): tsx, which comes with the bot, is registered for the rest of the process, ES modules
 * and CommonJS alike, exactly as `npm start`'s `--import tsx` does, and the module is imported
 * once, through it. Registered before the first import of the module: Node keeps the failure of
 * an import and hands it back to a second one. Not Node's own type stripping (22.18+), which
 * treats a file differently from tsx (no `.js` → `.ts` imports, no enums, a `.ts` file of a
 * CommonJS project not compiled to CommonJS), so a module loads the same on Node 20, 22 and 24.
 * (tsx's tsImport would keep it to the module, but it loads CommonJS dependencies again under
 * a name of their own, and pino, loaded half from each, then fails.)
 */
async function importTypeScript(path: string, url: string): Promise<Record<string, unknown>> {
  try {
    const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
    esm.register();
    cjs.register();
  } catch (error) {
    throw new AgentsModuleError(
      path,
      'is TypeScript, which plain node loads only through tsx, and tsx could not be loaded: run `npm install tsx` where the bot runs, or point AGENTS_MODULE at the module compiled to JavaScript',
      { cause: error },
    );
  }
  return (await import(url)) as Record<string, unknown>;
}

/**
 * What a module exports. A CommonJS module's `module.exports` arrives as `default`, with only the
 * names Node could tell from its source beside it (`module.exports = { agent: new Agent(…) }`
 * shows none), so its own properties are taken from there; TypeScript compiled to CommonJS (a
 * `.ts` file in a project without `"type": "module"`) has its `export default` at `default.default`.
 */
function exportsOf(namespace: Record<string, unknown>): Record<string, unknown> {
  const commonJs = namespace.default;
  if (typeof commonJs !== 'object' || commonJs === null || isAgent(commonJs)) return namespace;
  return { ...namespace, ...(commonJs as Record<string, unknown>) };
}

/** Why the module could not be loaded; for a package it imports that is not installed, what to install and where. */
function loadProblem(error: unknown, file: string): string {
  const message = errorMessage(error);
  const code = (error as { code?: string }).code;
  const specifier = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' ? /Cannot find (?:package|module) '([^']+)'/.exec(message)?.[1] : undefined;
  if (!specifier || specifier.startsWith('.') || isAbsolute(specifier) || specifier.startsWith('file:')) return message;
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
  const project = projectDirOf(file);
  if (name === PACKAGE_NAME) {
    return `it imports "${name}", which is not installed in ${project}: add the bot to that project as a dependency (npm install <the bot's git URL or a packed tarball>; see "Your own agents" in the README)`;
  }
  return `it imports "${name}", which is not installed in ${project}: run \`npm install ${name}\` there`;
}

const PACKAGE_NAME = 'slack-approval-bot';

/** The directory of the package.json nearest the module (where its imports are installed), else its own. */
function projectDirOf(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(file);
  }
}

/**
 * The configured providers (keys, base URLs) for each agent of the module whose model is a
 * `provider/model` string without settings of its own, sub-agents included: built now, so a
 * missing key stops start-up naming the variable instead of failing on the first mention.
 */
function useHostProviders(path: string, root: Agent, providers: ProviderSettings): void {
  const seen = new Set<Agent>();
  const visit = (agent: Agent) => {
    if (seen.has(agent)) return;
    seen.add(agent);
    try {
      useProviders(agent.model, providers);
    } catch (error) {
      throw new AgentsModuleError(path, `agent ${agent.id}: ${errorMessage(error)}`, { cause: error });
    }
    for (const sub of Object.values(agent.subAgents ?? {})) visit(sub);
  };
  visit(root);
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
