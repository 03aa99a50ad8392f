import type { GroupResolver } from '../approvals/group-resolver.js';
import { definePolicy } from '../approvals/define-policy.js';
import type { Policy } from '../approvals/policy-types.js';
import type { Database, Db } from '../db/database.js';
import { silentLogger, type Logger } from '../logger.js';
import type { RuntimeDeps } from './run-model.js';
import type { Workspace } from '../approvals/workspace.js';
import { RunSlots } from './run-slots.js';

/** See RuntimeSettings.maxConcurrentRuns. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 32;

/** Approval only where a tool asks for it: what an agent given no policy runs under. */
export const defaultPolicy = definePolicy({});

/** Where and how an agent's runs happen: the part of AgentConfig a host may also provide (see Agent.attach). */
export interface RuntimeSettings {
  /** Where runs are kept. Required on the agent you call; sub-agents use their supervisor's. */
  storage?: Database | Db;
  policy?: Policy;
  /**
   * A policy tried beside `policy` without enforcing it (SHADOW_POLICY_FILE): every call is
   * evaluated under both, and where they differ a `shadow-diff` audit event and a metric say how
   * (see RuntimeDeps.shadowPolicy). It never changes a decision.
   */
  shadowPolicy?: Policy;
  /** What the policy takes for now (freeze windows); default the system clock. For tests. */
  clock?: () => Date;
  logger?: Logger;
  resolveGroupMembers?: GroupResolver;
  botUserId?: string;
  /** The workspace the front end serves (see Agent.serveWorkspace). */
  workspace?: Workspace;
  grantTtlMs?: number;
  /** See RuntimeDeps.runLeaseMs; default one minute. */
  runLeaseMs?: number;
  /** See RuntimeDeps.recordRunAfterMs; default 250 ms. */
  recordRunAfterMs?: number;
  /**
   * How many runs this process works on at once (default 32): continuations past it wait for a
   * slot, decisions ahead of the sweep's backlog (see RunSlots). Model providers' rate limits
   * usually bind first; this keeps a backlog of thousands from starting thousands of model calls.
   */
  maxConcurrentRuns?: number;
  /**
   * Keep each finished run's answer in run_results until a front end has shown it (see
   * RuntimeDeps.keepResults); a front end that delivers answers turns it on (keepResults()).
   */
  keepResults?: boolean;
}

const systemClock = () => new Date();

/** The runtime settings an AgentConfig carries. */
export function runtimeSettingsOf(config: RuntimeSettings): RuntimeSettings {
  return definedOnly({
    storage: config.storage,
    policy: config.policy,
    shadowPolicy: config.shadowPolicy,
    clock: config.clock,
    logger: config.logger,
    resolveGroupMembers: config.resolveGroupMembers,
    botUserId: config.botUserId,
    workspace: config.workspace,
    grantTtlMs: config.grantTtlMs,
    runLeaseMs: config.runLeaseMs,
    recordRunAfterMs: config.recordRunAfterMs,
    maxConcurrentRuns: config.maxConcurrentRuns,
    keepResults: config.keepResults,
  });
}

/** The settings, with every default filled in. */
export function runtimeDeps(settings: RuntimeSettings & { storage: Database | Db }): RuntimeDeps {
  const storage = settings.storage;
  const db = 'db' in storage && 'kind' in storage ? storage.db : (storage as Db);
  return {
    db,
    logger: settings.logger ?? silentLogger,
    policy: settings.policy ?? defaultPolicy,
    ...(settings.shadowPolicy ? { shadowPolicy: settings.shadowPolicy } : {}),
    now: settings.clock ?? systemClock,
    ...(settings.resolveGroupMembers ? { resolveGroupMembers: settings.resolveGroupMembers } : {}),
    ...(settings.botUserId ? { botUserId: settings.botUserId } : {}),
    ...(settings.workspace ? { workspace: settings.workspace } : {}),
    grantTtlMs: settings.grantTtlMs ?? 15 * 60_000,
    runLeaseMs: settings.runLeaseMs ?? 60_000,
    // Before the Slack app's working reaction (300 ms) shows: a run people see at work is on record.
    recordRunAfterMs: settings.recordRunAfterMs ?? 250,
    keepResults: settings.keepResults ?? false,
    runSlots: new RunSlots(settings.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS),
  };
}

/** The object without its undefined fields, so spreading it never overwrites a value with undefined. */
export function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
