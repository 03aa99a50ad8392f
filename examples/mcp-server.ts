/**
 * A small MCP server for the example agent, over stdio: the team's runbooks and its on-call
 * pager (both stand-ins kept in memory). examples/agents.ts starts it for the agent with
 * `node --import tsx examples/mcp-server.ts`; any MCP server (npx …, a Docker image, a
 * Streamable HTTP URL) plugs in the same way.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const runbooks = [
  { title: 'Printer offline', steps: 'Power-cycle the printer, then re-add it from the print server.' },
  { title: 'VPN refuses login', steps: 'Reset the user\'s MFA token, then ask them to sign in again.' },
  { title: 'Mailbox full', steps: 'Archive mail older than a year; raise the quota only with a manager\'s OK.' },
];

const server = new McpServer({ name: 'runbooks', version: '1.0.0' });

server.registerTool(
  'search_runbooks',
  {
    description: 'Search the team\'s runbooks by keyword.',
    inputSchema: { query: z.string().min(2).describe('What to look for, e.g. "printer"') },
    // A hint only: the example's policy chooses to trust it for this server (mcp.trustReadOnlyHint).
    annotations: { readOnlyHint: true },
  },
  async ({ query }) => {
    const found = runbooks.filter((r) => `${r.title} ${r.steps}`.toLowerCase().includes(query.toLowerCase()));
    return { content: [{ type: 'text', text: found.map((r) => `${r.title}: ${r.steps}`).join('\n') || `No runbook mentions "${query}".` }] };
  },
);

server.registerTool(
  'page_oncall',
  {
    description: 'Page the on-call engineer of a team about an incident.',
    inputSchema: { team: z.enum(['support', 'infra']), summary: z.string().min(3).max(200) },
  },
  async ({ team, summary }) => ({ content: [{ type: 'text', text: `Paged the ${team} on-call: ${summary}` }] }),
);

await server.connect(new StdioServerTransport());
