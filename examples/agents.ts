/**
 * An agents module: `AGENTS_MODULE=examples/agents.ts npm start` runs this
 * agent behind Slack (or the local sandbox) instead of the demo. It exports
 * the top-level agent (the one mentions reach), its approval policy, an MCP
 * server whose tools the agent gets (runbooks__search_runbooks, runbooks__page_oncall),
 * and the requests the sandbox offers to try.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Agent, createTool, definePolicy } from 'slack-approval-bot';
import { offlineTicketModel } from './offline-model.js';
import { closeTicket, createTicket, findTicket, openTickets } from './tickets.js';

const ticketId = z.number().int().positive().describe('The ticket number, e.g. 101');

const lookupTicket = createTool({
  id: 'lookup_ticket',
  description: 'Look a ticket up by its number: title, status and assignee.',
  inputSchema: z.object({ id: ticketId }),
  execute: async ({ id }) => findTicket(id) ?? { found: false, id },
});

const listOpenTickets = createTool({
  id: 'list_open_tickets',
  description: 'List the tickets that are still open.',
  inputSchema: z.object({}),
  execute: async () => openTickets(),
});

const openTicket = createTool({
  id: 'create_ticket',
  description: 'Open a new ticket with a title.',
  inputSchema: z.object({ title: z.string().trim().min(3).max(200) }),
  execute: async ({ title }) => createTicket(title),
});

// Closing a ticket hides it from the team's queue: someone approves each close in the thread.
const closeTicketTool = createTool({
  id: 'close_ticket',
  description: 'Close a ticket. A person approves each close before it happens.',
  inputSchema: z.object({ id: ticketId }),
  requireApproval: true,
  execute: async ({ id }) => closeTicket(id),
});

const agent = new Agent({
  id: 'support',
  instructions:
    'You are Support, working in a Slack thread. Use the ticket tools; never say a ticket changed unless a tool result says so. ' +
    'To close a ticket, call close_ticket: the approval is handled for you. ' +
    'For how-tos, search the runbooks (runbooks__search_runbooks); to page the on-call, call runbooks__page_oncall.',
  // With MODEL set (and its key), a real model; otherwise a small offline one that reads plain requests.
  model: process.env.MODEL ?? offlineTicketModel(),
  tools: { lookup_ticket: lookupTicket, list_open_tickets: listOpenTickets, create_ticket: openTicket, close_ticket: closeTicketTool },
  memory: true,
});

export default agent;

/**
 * MCP servers whose tools the agent gets, named `<server>__<tool>`. Started with the bot and
 * reconnected if they stop; MCP_SERVERS (a JSON/YAML file) can add more without code.
 */
export const mcpServers = {
  runbooks: { command: process.execPath, args: ['--import', 'tsx', fileURLToPath(new URL('./mcp-server.ts', import.meta.url))] },
};

/** What the sandbox offers under its composer ("Try: …"): requests this agent understands. */
export const examples = [
  'list open tickets',
  'look up ticket 101',
  'close ticket 102',
  'open a ticket: Printer on floor 3 is jammed',
  'runbook printer',
  'page on-call: printer on fire',
];

export const policy = definePolicy({
  version: 'support-example',
  defaults: { requireApproval: false, expiresIn: '4h' },
  // MCP tools ask for approval unless the policy says otherwise; this server's read-only hints are trusted.
  mcp: { trustReadOnlyHint: ['runbooks'] },
  tools: {
    'runbooks.page_oncall': { requireApproval: true, allowSelfApproval: false },
    close_ticket: { requireApproval: true, allowSelfApproval: true },
    // Opening tickets is cheap, but a bot opening many would be noise: someone confirms each.
    create_ticket: { requireApproval: true, allowSelfApproval: true },
  },
});
