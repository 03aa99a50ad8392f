import { Agent } from '../agent/agent.js';
import { askUserTool } from '../agent/ask-user.js';
import type { ModelInput, ProviderSettings } from '../agent/model.js';
import type { GroupResolver } from '../approvals/group-resolver.js';
import type { Policy } from '../approvals/policy-types.js';
import type { Database, Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { demoPolicy } from './demo-policy.js';
import type { AnyKysely } from './demo-tables.js';
import { createDeleteRecordTool } from './tools/delete-record.js';
import { createDeployServiceTool } from './tools/deploy-service.js';
import { createIssueRefundTool } from './tools/issue-refund.js';
import { createLookupRecordTool } from './tools/lookup-record.js';

interface DemoAgentsOptions {
  /** Where the demo tables are; usually the same database as `storage`. */
  db: AnyKysely;
  /** A LanguageModelV3, or a `provider/model` string resolved from the process configuration. */
  model: ModelInput;
  /** The provider settings a `provider/model` string is built with (the bot's configuration). */
  providers?: ProviderSettings;
  /** Where runs, pending approvals and thread memory are kept. */
  storage: Database | Db;
  logger?: Logger;
  /** Defaults to `demoPolicy`; pass the one loaded from POLICY_FILE to override it. */
  policy?: Policy;
  botUserId?: string;
  resolveGroupMembers?: GroupResolver;
  /** See AgentConfig.runLeaseMs. */
  runLeaseMs?: number;
  /** See AgentConfig.maxConcurrentRuns. */
  maxConcurrentRuns?: number;
}

export interface DemoAgents {
  ops: Agent;
}

const OPS_INSTRUCTIONS = `You are Ops, an operations assistant working in a Slack thread.

Your tools:
- lookup_record: read a record (title, owner, whether it is deleted).
- delete_record: delete a record. Each deletion waits until a person approves it in the thread.
- deploy_service: deploy a version of a service. Staging deploys at once; production first asks the user to confirm.
- ask_user: ask the user a question. Give options when the answer is a choice.
- agent-billing: hand anything about money (refunds on orders) to the billing agent. Put the order id, the amount and the reason in the prompt.

How to work:
- Look a record up before deleting it, and only delete the record the user named. Never guess an id: if it is missing or the lookup finds nothing, say so or ask.
- If a deploy request does not say which environment, ask; never assume production.
- To do something, call the tool. Do not ask for permission in text first: approvals and confirmations are handled for you, and the call waits until someone decides.
- If a call was declined, cancelled or expired, say so plainly and do not retry it unless the user asks again.
- Never say something happened unless a tool result says it did. Report errors and "not found" results as they are.
- Tools count money in cents; show amounts to people in dollars ($12.50).
- Keep replies short: what you did, what changed, and what is still waiting.`;

const BILLING_INSTRUCTIONS = `You are Billing, the refunds specialist. The ops agent hands you requests; your reply goes back to it, not to the customer.

- issue_refund refunds an amount in cents on an order: $12.50 is 1250. Pass the reason when there is one.
- Every refund waits for approval by a person other than the requester; refunds above $1,000 need two approvers. Just call the tool; do not ask for approval in text.
- Only refund when the order id and the amount are clear. Otherwise reply with what is missing instead of guessing.
- If the tool fails (unknown order, more than is left to refund), report the error as it is and do not retry with another amount on your own.
- Reply in one or two sentences: the refund id, amount and order, and how much is left to refund, or why nothing was refunded.`;

/**
 * The agents `npm start` runs when no others are configured. They act on the
 * demo tables for real, so an approval in Slack has a visible effect.
 */
export function createDemoAgents(options: DemoAgentsOptions): DemoAgents {
  const { db, model } = options;
  const providers = options.providers ? { providers: options.providers } : {};

  // No storage or policy of its own: a sub-agent runs on its supervisor's, so one
  // policy decides every call whichever agent makes it.
  const billing = new Agent({
    id: 'billing',
    name: 'billing',
    description: 'Issues refunds on customer orders. Give it the order id, the amount and the reason.',
    instructions: BILLING_INSTRUCTIONS,
    model,
    ...providers,
    tools: { issue_refund: createIssueRefundTool({ db }) },
  });

  const ops = new Agent({
    id: 'ops',
    name: 'ops',
    description: 'Looks up and deletes records, deploys services, and routes refunds to billing.',
    instructions: OPS_INSTRUCTIONS,
    model,
    ...providers,
    tools: {
      lookup_record: createLookupRecordTool({ db }),
      delete_record: createDeleteRecordTool({ db }),
      deploy_service: createDeployServiceTool({ db }),
      ask_user: askUserTool,
    },
    agents: { billing },
    memory: true,
    // A plain "yes" in the thread answers a pending deploy confirmation or question;
    // approvals are never answered this way, they need an authorised click.
    defaultOptions: { autoResumeSuspendedTools: true },
    storage: options.storage,
    policy: options.policy ?? demoPolicy,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.botUserId ? { botUserId: options.botUserId } : {}),
    ...(options.resolveGroupMembers ? { resolveGroupMembers: options.resolveGroupMembers } : {}),
    ...(options.runLeaseMs !== undefined ? { runLeaseMs: options.runLeaseMs } : {}),
    ...(options.maxConcurrentRuns !== undefined ? { maxConcurrentRuns: options.maxConcurrentRuns } : {}),
  });

  return { ops };
}
