import { existsSync } from 'node:fs';
import { z } from 'zod';
import { readMcpServersFile } from './mcp/read-mcp-servers-file.js';
import type { McpServerConfig } from './mcp/mcp-server-config.js';
import { errorMessage } from './error-message.js';
import { DEFAULT_MAX_CONCURRENT_RUNS } from './agent/runtime-deps.js';

/**
 * The only reader of `process.env`. Everything else receives a frozen `Config`.
 * A bad value stops start-up with a message naming the variable, because a
 * half-configured approval bot is worse than one that refuses to start.
 */

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const url = (name: string) =>
  optionalString.refine((v) => v === undefined || URL.canParse(v), {
    message: `${name} must be an absolute URL`,
  });

/** A whole number of milliseconds, at least `min` and at most a day; `fallback` when unset. */
const durationMs = (name: string, fallback: number, min: number) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? fallback : Number(v.trim())))
    .refine((n) => Number.isInteger(n) && n >= min && n <= 86_400_000, {
      message: `${name} must be a whole number of milliseconds from ${min} to 86400000`,
    });

const envSchema = z.object({
  SLACK_BOT_TOKEN: optionalString.refine((v) => v === undefined || /^xox[bp]-/.test(v), {
    message: 'SLACK_BOT_TOKEN must be a bot token starting with xoxb-',
  }),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_APP_TOKEN: optionalString.refine((v) => v === undefined || v.startsWith('xapp-'), {
    message: 'SLACK_APP_TOKEN must be an app-level token starting with xapp-',
  }),
  SLACK_API_URL: url('SLACK_API_URL'),
  SLACK_ASSISTANT: z
    .enum(['auto', 'on', 'off'], { message: 'SLACK_ASSISTANT must be auto, on or off' })
    .optional()
    .transform((v) => v ?? 'off'),
  PORT: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? 3000 : Number(v)))
    .refine((n) => Number.isInteger(n) && n >= 0 && n <= 65535, {
      message: 'PORT must be an integer between 0 and 65535',
    }),
  SANDBOX_HOST: optionalString.refine((v) => v === undefined || /^(?:[A-Za-z0-9.-]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/.test(v), {
    message: 'SANDBOX_HOST must be a host name or an IP address, e.g. 127.0.0.1 or 0.0.0.0',
  }),
  DATABASE_URL: optionalString.refine(
    (v) => v === undefined || /^postgres(ql)?:\/\//.test(v),
    { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' },
  ),
  DATA_DIR: optionalString.transform((v) => v ?? '.data'),
  DATABASE_PREPARED_STATEMENTS: z
    .enum(['true', 'false'], { message: 'DATABASE_PREPARED_STATEMENTS must be true or false' })
    .optional()
    .transform((v) => v !== 'false'),
  MODEL: optionalString.refine((v) => v === undefined || /^[a-z0-9.-]+\/.+/.test(v), {
    message: 'MODEL must look like provider/model, e.g. openai/gpt-5-mini',
  }),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: url('OPENAI_BASE_URL'),
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: url('ANTHROPIC_BASE_URL'),
  OPENAI_COMPATIBLE_BASE_URL: url('OPENAI_COMPATIBLE_BASE_URL'),
  OPENAI_COMPATIBLE_API_KEY: optionalString,
  LOG_FORMAT: z
    .enum(['json', 'pretty'], { message: 'LOG_FORMAT must be json or pretty' })
    .optional(),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .optional()
    .transform((v) => v ?? 'info'),
  ADMIN_API_TOKEN: optionalString,
  // Node's own switches for sending HTTP through HTTP_PROXY/HTTPS_PROXY (Node 22.21+ and 24.5+).
  NODE_USE_ENV_PROXY: optionalString,
  NODE_OPTIONS: optionalString,
  POLICY_FILE: optionalString,
  SHADOW_POLICY_FILE: optionalString,
  AGENTS_MODULE: optionalString,
  MCP_SERVERS: optionalString,
  RUN_LEASE_MS: durationMs('RUN_LEASE_MS', 60_000, 1_000),
  SWEEP_INTERVAL_MS: durationMs('SWEEP_INTERVAL_MS', 30_000, 100),
  CARD_REPAIR_AFTER_MS: durationMs('CARD_REPAIR_AFTER_MS', 60_000, 1_000),
  SHUTDOWN_TIMEOUT_MS: durationMs('SHUTDOWN_TIMEOUT_MS', 10_000, 100),
  MAX_CONCURRENT_RUNS: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? DEFAULT_MAX_CONCURRENT_RUNS : Number(v.trim())))
    .refine((n) => Number.isInteger(n) && n >= 1 && n <= 10_000, {
      message: 'MAX_CONCURRENT_RUNS must be a whole number from 1 to 10000',
    }),
  METRICS_TOKEN: optionalString,
  // Set by npm for `npm run …`: the folder it was run from (npm runs scripts in the package's own).
  INIT_CWD: optionalString,
});

export interface Config {
  readonly slack: {
    readonly botToken?: string;
    readonly signingSecret?: string;
    readonly appToken?: string;
    readonly apiUrl?: string;
    /**
     * Node sends HTTP through the proxy in HTTP_PROXY/HTTPS_PROXY (NODE_USE_ENV_PROXY=1 or
     * --use-env-proxy in NODE_OPTIONS). Only the global fetch and Node's global agents honour
     * that, so the Web API then uses the global fetch rather than the bot's own transport.
     */
    readonly useEnvProxy?: boolean;
    /**
     * Slack's AI-app methods: a status while a run waits for approval, the answer streamed.
     * `auto` in threads of DMs with the app, `on` in every thread, `off` (default) never.
     */
    readonly assistant?: 'auto' | 'on' | 'off';
  };
  readonly port: number;
  /**
   * Where the sandbox's UI listens (SANDBOX_HOST; loopback when unset): whoever reaches it can act
   * as anyone in its pretend workspace. The bot behind the sandbox listens on loopback whatever it says.
   */
  readonly sandboxHost?: string;
  /**
   * The interface the bot's own HTTP server listens on; unset, every interface (Bolt's default).
   * Not read from the environment: the sandbox sets it to loopback for the bot behind it.
   */
  readonly httpHost?: string;
  readonly databaseUrl?: string;
  /** Off for poolers that cannot keep a session's prepared statements (PgBouncer in transaction mode before 1.21). */
  readonly databasePreparedStatements: boolean;
  readonly dataDir: string;
  readonly model?: string;
  readonly providers: {
    readonly openai: { readonly apiKey?: string; readonly baseURL?: string };
    readonly anthropic: { readonly apiKey?: string; readonly baseURL?: string };
    readonly openaiCompatible: { readonly apiKey?: string; readonly baseURL?: string };
  };
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Unset: pretty when stdout is a terminal, JSON lines otherwise (see createLogger). */
  readonly logFormat?: 'json' | 'pretty';
  /** When set, GET /metrics wants it as a Bearer token; unset, /metrics is open like /healthz. */
  readonly metricsToken?: string;
  /**
   * After SIGTERM/SIGINT, how long work in flight may take to reach a durable point before the
   * process hands its runs over to other instances and exits 1.
   */
  readonly shutdownTimeoutMs: number;
  /**
   * How many runs one instance works on at once: continuations past it wait for a slot,
   * decisions ahead of the sweep's backlog (see RunSlots).
   */
  readonly maxConcurrentRuns: number;
  readonly adminApiToken?: string;
  readonly policyFile?: string;
  /**
   * A policy evaluated beside the enforced one for every call and never enforced: where the two
   * differ, a `shadow-diff` audit event and a metric say how. Reloaded like POLICY_FILE.
   */
  readonly shadowPolicyFile?: string;
  /** A module exporting the agents to run instead of the demo (see src/bot/load-agents-module.ts). */
  readonly agentsModule?: string;
  /** MCP servers from MCP_SERVERS' file (read and validated here, `${VAR}` expanded); empty when unset. */
  readonly mcpServers: readonly McpServerConfig[];
  /**
   * Where a command-line tool's relative paths are meant from: the folder `npm run` was started
   * in (npm's INIT_CWD), else the working directory.
   */
  readonly invocationDir: string;
  /** How operable recovery is: see the README's section on several instances. */
  readonly timings: {
    /** How long a run being continued may go unrenewed before another instance takes it over. */
    readonly runLeaseMs: number;
    /** How often each instance sweeps: expiries, takeovers, and cards and answers to repair. */
    readonly sweepIntervalMs: number;
    /** How long a card or answer may stay unposted or out of date before the sweep repairs it. */
    readonly cardRepairAfterMs: number;
  };
}

export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(
    message: string,
    readonly variable: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Validates an environment-like record; pure so tests can pass their own. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${variable}: ${issue.message}`, variable);
  }
  const e = parsed.data;
  if (e.SLACK_BOT_TOKEN && !e.SLACK_APP_TOKEN && !e.SLACK_SIGNING_SECRET) {
    throw new ConfigError(
      'Invalid configuration: SLACK_SIGNING_SECRET is required with SLACK_BOT_TOKEN in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)',
      'SLACK_SIGNING_SECRET',
    );
  }
  if ((e.SLACK_SIGNING_SECRET || e.SLACK_APP_TOKEN) && !e.SLACK_BOT_TOKEN) {
    throw new ConfigError(
      'Invalid configuration: SLACK_BOT_TOKEN is required when Slack is configured',
      'SLACK_BOT_TOKEN',
    );
  }
  let mcpServers: McpServerConfig[] = [];
  if (e.MCP_SERVERS) {
    try {
      mcpServers = readMcpServersFile(e.MCP_SERVERS, env);
    } catch (error) {
      throw new ConfigError(`Invalid configuration: MCP_SERVERS: ${errorMessage(error)}`, 'MCP_SERVERS');
    }
  }
  return deepFreeze({
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      useEnvProxy: e.NODE_USE_ENV_PROXY === '1' || /(^|\s)--use-env-proxy(\s|$)/.test(e.NODE_OPTIONS ?? ''),
      assistant: e.SLACK_ASSISTANT,
    },
    port: e.PORT,
    sandboxHost: e.SANDBOX_HOST,
    databaseUrl: e.DATABASE_URL,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    dataDir: e.DATA_DIR,
    model: e.MODEL,
    providers: {
      openai: { apiKey: e.OPENAI_API_KEY, baseURL: e.OPENAI_BASE_URL },
      anthropic: { apiKey: e.ANTHROPIC_API_KEY, baseURL: e.ANTHROPIC_BASE_URL },
      openaiCompatible: {
        apiKey: e.OPENAI_COMPATIBLE_API_KEY,
        baseURL: e.OPENAI_COMPATIBLE_BASE_URL,
      },
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    metricsToken: e.METRICS_TOKEN,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    maxConcurrentRuns: e.MAX_CONCURRENT_RUNS,
    adminApiToken: e.ADMIN_API_TOKEN,
    policyFile: e.POLICY_FILE,
    shadowPolicyFile: e.SHADOW_POLICY_FILE,
    invocationDir: e.INIT_CWD ?? process.cwd(),
    agentsModule: e.AGENTS_MODULE,
    mcpServers,
    timings: { runLeaseMs: e.RUN_LEASE_MS, sweepIntervalMs: e.SWEEP_INTERVAL_MS, cardRepairAfterMs: e.CARD_REPAIR_AFTER_MS },
  });
}

let cached: Config | undefined;

/** Reads `.env` (when present) and the process environment once. */
export function loadConfig(): Config {
  if (cached) return cached;
  if (existsSync('.env')) process.loadEnvFile('.env');
  cached = parseConfig(process.env);
  return cached;
}
