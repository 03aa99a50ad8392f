import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attachMcpServers, type AttachedMcpServers } from '../../src/mcp/attach-mcp-servers.js';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { AgentsModuleError } from '../../src/bot/agents-module-error.js';
import { loadAgentsModule } from '../../src/bot/load-agents-module.js';
import type { BotAgents } from '../../src/bot-agents.js';
import { silentLogger } from '../../src/logger.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { clickButton, mention, slackHarness, startBot, textOf, updatesOf, waitForCard, waitForText, waitForUpdate } from '../helpers/slack-bot.js';
import { viewSubmissionPayload } from '../../src/simulator/index.js';

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';

// The example imports the package by name, as a team's module would: its built copy.
beforeAll(ensureBuiltPackage, 300_000);

// The Slack side of a module's agent: on one backend, as the other Slack end-to-end groups (needs.ts).
describeOnOneBackend('an agents module (AGENTS_MODULE) behind Slack on %s', (backend) => {
  const h = slackHarness(backend);
  let mcp: AttachedMcpServers | undefined;
  afterEach(async () => {
    await mcp?.close();
    mcp = undefined;
  });

  /**
   * The shipped example, loaded the way `npm start` loads AGENTS_MODULE; it imports the package by
   * name. With `mcp`, its MCP servers join its agent as main.ts attaches them (a process of their
   * own each, so only for the test of them).
   */
  async function bootExample({ mcp: withMcp = false } = {}): Promise<{ agents: BotAgents }> {
    const agents = await loadAgentsModule({ path: 'examples/agents.ts', database: h.database, logger: silentLogger, runLeaseMs: 60_000 });
    h.bot = await startBot({ fake: h.fake, db: h.database.db, makeAgent: (deps) => agents.agentFor(deps) });
    if (withMcp) mcp = await attachMcpServers(h.bot.agent, agents.mcpServers ?? [], { logger: silentLogger });
    return { agents };
  }

  it('the example\'s MCP server: its read-only tool runs at once (trusted hint), paging the on-call waits for someone else\'s approval', async () => {
    const { agents } = await bootExample({ mcp: true });
    expect(agents.mcpServers?.map((s) => s.name)).toEqual(['runbooks']);
    const b = h.bot!;
    const search = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'runbook printer' });
    expect(textOf(await waitForText(h.fake, search, 'Printer offline'))).toContain('Power-cycle the printer');

    const page = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'page on-call: printer on fire' });
    const card = await waitForCard(h.fake, page, 'approval');
    expect(textOf(card.call)).toContain('runbooks__page_oncall');
    await clickButton(b, card, REQUESTER, ACTION_IDS.approve);
    await h.fake.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === REQUESTER);
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    expect(textOf(await waitForText(h.fake, page, 'Paged the support on-call'))).toContain('Paged the support on-call: printer on fire');
  });

  it('the example agent runs behind Slack under its module’s policy: a close approved in the thread closes the ticket', async () => {
    const { agents } = await bootExample();
    expect(agents.policy.version).toMatch(/^support-example@/);
    expect(agents.modelLabel).toBe('example/offline-tickets');
    expect(agents.examples).toContain('close ticket 102');
    const b = h.bot!;
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'close ticket 102' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(textOf(card.call)).toContain('close_ticket');
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    const answer = await waitForText(h.fake, thread, 'Closed ticket');
    expect(textOf(answer)).toContain('Closed ticket #102 "Refund email has the wrong currency".');
  });

  it('a close declined in the thread does not happen, and the model is told', async () => {
    await bootExample();
    const b = h.bot!;
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'close ticket 103' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await clickButton(b, card, ALICE, ACTION_IDS.decline);
    const modal = await h.fake.waitFor('views.open');
    const view = modal.args.view as { private_metadata: string; callback_id: string };
    await b.send.interaction(viewSubmissionPayload({ user: ALICE, callbackId: view.callback_id, privateMetadata: view.private_metadata, stateValues: { reason: { reason: 'keep it open' } } }));
    await waitForUpdate(h.fake, card, 'Declined');
    await waitForText(h.fake, thread, 'That was not done');
    expect(updatesOf(h.fake, card).some((u) => textOf(u).includes('Approved'))).toBe(false);
  });
});

describe('a module that cannot be used stops start-up with a message naming the file and what is wrong', () => {
  const load = (path: string) => loadAgentsModule({ path, database: {} as never, logger: silentLogger, runLeaseMs: 60_000 });

  it.each([
    ['test/fixtures/agents-modules/no-agent.ts', /no-agent\.ts: must export its top-level Agent as `default` or `agent` \(found exports greeting\)/],
    ['test/fixtures/agents-modules/wrong-default.ts', /wrong-default\.ts: must export its top-level Agent .*default export is an object with id, model/],
    ['test/fixtures/agents-modules/bad-policy.ts', /bad-policy\.ts: its `policy` export is not valid: .*tools\.close_ticket\.requireAproval/],
    ['test/fixtures/agents-modules/bad-mcp.ts', /bad-mcp\.ts: its `mcpServers` export is not valid: mcpServers\.github: must be a map with "command"/],
    ['test/fixtures/agents-modules/bad-examples.ts', /bad-examples\.ts: its `examples` export must be a list of at most 10 requests, each one line/],
    ['test/fixtures/agents-modules/throws.ts', /throws\.ts: could not be loaded: TICKETS_API_TOKEN is not set/],
    ['test/fixtures/agents-modules/missing.ts', /missing\.ts: could not be loaded/],
  ])('%s', async (path, message) => {
    const error = await load(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentsModuleError);
    expect((error as Error).message).toMatch(message);
  });

  it('a JavaScript module works too, with its policy given as plain data', async () => {
    const agents = await load('test/fixtures/agents-modules/plain-js.mjs');
    expect(agents.policy.version).toMatch(/^js@/);
    expect(agents.policySource).toContain('plain-js.mjs');
    // No `examples` export: the sandbox offers a question any agent answers, not the demo's requests.
    expect(agents.examples).toEqual(['what can you do?']);
  });

  it('MAX_CONCURRENT_RUNS reaches the module\'s agent: its continuations past it wait for a slot', async () => {
    const limited = await loadAgentsModule({ path: 'test/fixtures/agents-modules/plain-js.mjs', database: {} as never, logger: silentLogger, runLeaseMs: 60_000, maxConcurrentRuns: 5 });
    const workspace = { botUserId: 'UBOT', resolveGroupMembers: async () => [] };
    expect(limited.agentFor(workspace).runtime.runSlots.limit).toBe(5);
  });
});
