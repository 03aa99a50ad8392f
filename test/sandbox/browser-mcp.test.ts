/**
 * MCP tools in the sandbox, in a real browser (Debian's Chromium, driven by playwright-core):
 * `MCP_SERVERS=<file> npm start` with no Slack variables and no model, the file (in a folder
 * outside the repository, as a team's would be) naming examples/mcp-server.ts as a stdio server.
 * The built-in demo model lists the server's tools in its help and calls them by name, with JSON
 * or key=value arguments; each call waits for its approval like any tool. Skipped where
 * /usr/bin/chromium is missing.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSandboxInChromium } from '../helpers/sandbox-in-chromium.js';
import { type SandboxPage } from '../helpers/sandbox-page.js';
import { needing } from '../helpers/needs.js';
import { tempDir } from '../helpers/temp-dir.js';

const configDir = tempDir('sandbox-mcp-config-');
const mcpFile = join(configDir, 'mcp.yaml');
writeFileSync(
  mcpFile,
  ['mcpServers:', '  runbooks:', '    command: node', `    args: [--import, tsx, ${JSON.stringify(resolve('examples/mcp-server.ts'))}]`, ''].join('\n'),
);

describe('MCP tools in the sandbox with the built-in demo model, in Chromium', needing('chromium', { timeout: 120_000 }), () => {
  // The help lists the server's tools once it has answered: the bot waits 10 s for that, then
  // serves without them, and a cold `node --import tsx` server on a busy machine can take longer.
  const browser = useSandboxInChromium(
    'mcp',
    'U0ALICE',
    undefined,
    { MCP_SERVERS: mcpFile, MODEL: undefined, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined },
    'MCP server connected',
  );
  let page: Page;
  let request: SandboxPage['request'];
  beforeAll(() => void ({ page, request } = browser.sandbox));
  afterAll(() => rmSync(configDir, { recursive: true, force: true }));

  const answer = async (thread: Locator, text: RegExp) => {
    const message = thread.locator('.msg-bot', { hasText: text }).last();
    await message.waitFor();
    return (await message.textContent()) ?? '';
  };
  const cardFor = (thread: Locator, tool: string) => thread.locator('.msg-bot', { has: page.locator('.bk-blocks', { hasText: `tool ${tool}` }) }).last();

  it('help lists the server’s tools beside the demo’s, and how to call one by name', async () => {
    const said = await answer(await request('@approvals help'), /My tools:/);
    expect(said).toContain('runbooks__search_runbooks: Search the team\'s runbooks by keyword.');
    expect(said).toContain('runbooks__page_oncall: Page the on-call engineer of a team about an incident.');
    expect(said).toContain('call <tool> with {"key": "value"}');
  });

  it('call <tool> with {json}: the card names the server and tool, Approve runs it, the answer is what the server said', async () => {
    const thread = await request('@approvals call runbooks__search_runbooks with {"query": "printer"}');
    const card = cardFor(thread, 'search_runbooks');
    expect(await card.textContent()).toContain('MCP server: runbooks, tool search_runbooks');
    await card.locator('button', { hasText: 'Approve' }).click();
    await expect.poll(() => card.textContent()).toContain('Approved by @alice');
    expect(await answer(thread, /Printer offline/)).toContain('Printer offline: Power-cycle the printer, then re-add it from the print server.');
  });

  it('<server.tool> key=value, by the policy’s name for it: values with spaces, and the call runs once approved', async () => {
    const thread = await request('@approvals runbooks.page_oncall team=support summary=printer on fire');
    const card = cardFor(thread, 'page_oncall');
    expect(await card.textContent()).toContain('printer on fire');
    await card.locator('button', { hasText: 'Approve' }).click();
    expect(await answer(thread, /Paged the/)).toContain('Paged the support on-call: printer on fire.');
  });

  it('arguments the server’s schema refuses are reported, and nothing is asked or run', async () => {
    const thread = await request('@approvals call runbooks__page_oncall with {"team": "nobody", "summary": "hi there"}');
    const said = await answer(thread, /That failed/);
    expect(said).toContain('Invalid input for tool runbooks__page_oncall');
    expect(await thread.locator('.msg-bot button', { hasText: 'Approve' }).count()).toBe(0);
  });

  it('a tool it does not have is named, with the ones it has', async () => {
    const said = await answer(await request('@approvals call github__create_issue with {}'), /I have no tool/);
    expect(said).toContain('I have no tool github__create_issue. I can call lookup_record');
    expect(said).toContain('runbooks__page_oncall');
  });

  it('shows no script errors along the way', () => {
    expect(browser.sandbox.pageErrors).toEqual([]);
  });
});
