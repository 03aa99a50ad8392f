import type { ProviderSettings } from '../agent/model.js';
import type { Policy } from '../approvals/policy-types.js';
import type { BotAgents } from '../bot-agents.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import { createDemoAgents } from './create-demo-agents.js';
import { demoPolicy, sandboxDemoPolicy } from './demo-policy.js';
import { createDemoTables } from './demo-tables.js';
import { createDemoModel } from './model/create-demo-model.js';
import { seedDemoData } from './seed-demo-data.js';

interface StartDemoOptions {
  /** Where runs are kept; the demo's tables go into the same database. */
  database: Database;
  /** The configured `provider/model`; without one the demo agents think with the built-in demo model. */
  model: string | undefined;
  /** The configured provider settings (keys, base URLs) the `provider/model` string is built with. */
  providers?: ProviderSettings;
  /** A policy from POLICY_FILE, which replaces the demo's own. */
  policyFile?: { path: string; policy: Policy } | undefined;
  logger: Logger;
  runLeaseMs: number;
  /** MAX_CONCURRENT_RUNS; the runtime's default when absent. */
  maxConcurrentRuns?: number;
  /** Behind the local sandbox, whose people are known, the demo policy names refund approvers. */
  sandbox?: boolean;
}

/** Requests the demo agents understand on the built-in demo model as on a real one (see src/demo/model/parse-request.ts). */
export const DEMO_EXAMPLES = [
  'delete record abc-123',
  'refund order 1042 for $25',
  'deploy api 2.3 to production',
  'clean up records',
  'look up record def-456',
  'help',
];

/**
 * The demo, for when no agents are configured: its tables and rows (created
 * here, not by the product's migrations, and never reset, so a restart keeps what
 * approved calls changed), its model when none is configured, and its agents.
 */
export async function startDemo(options: StartDemoOptions): Promise<BotAgents> {
  const { database, logger, runLeaseMs, maxConcurrentRuns } = options;
  await createDemoTables(database.db);
  await seedDemoData(database.db);
  const model = options.model ?? createDemoModel();
  const policy = options.policyFile?.policy ?? (options.sandbox ? sandboxDemoPolicy : demoPolicy);
  return {
    agentFor: (workspace) => createDemoAgents({ db: database.db, storage: database, model, ...(options.providers ? { providers: options.providers } : {}), policy, logger, runLeaseMs, ...(maxConcurrentRuns ? { maxConcurrentRuns } : {}), ...workspace }).ops,
    policy,
    policySource: options.policyFile?.path ?? 'built-in demo policy',
    modelLabel: options.model ?? 'built-in demo model (set MODEL and its API key for a real one)',
    examples: DEMO_EXAMPLES,
  };
}
