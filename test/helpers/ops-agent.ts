import { Agent, type AgentConfig } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { AgentDeps } from './slack-bot.js';

/** Builds the `ops` agent the Slack end-to-end tests talk to, with the bot's deps; no policy unless given. */
export function opsAgent(config: Omit<AgentConfig, 'id'>): (deps: AgentDeps) => Agent {
  return (deps) => new Agent({ id: 'ops', policy: definePolicy({}), ...config, ...deps });
}
