/**
 * An agents module in the sandbox, in a real browser (Debian's Chromium, driven by
 * playwright-core): `AGENTS_MODULE=examples/agents.ts npm start` with no Slack variables, the
 * example's own requests offered to try, its agent mentioned in #general, one tool call approved
 * and another declined through the UI, and the thread showing both outcomes in words. The module
 * is the subject, not the embedded database: a PostgreSQL schema of its own when DATABASE_URL is
 * set, else a DATA_DIR as an earlier start left it (bot-database.ts); opening PGlite cost the bot
 * about 5 s of CPU here, and the README's quick start in Chromium (browser.test.ts) runs on it.
 * Skipped where /usr/bin/chromium is missing.
 */
import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { botDatabase, type BotDatabase } from '../helpers/bot-database.js';
import { openSandboxPage, type SandboxPage } from '../helpers/sandbox-page.js';
import { needing } from '../helpers/needs.js';
import { npmStart, stopProcessGroup, type NpmStart } from '../helpers/sandbox/npm-start.js';
import { tempDir } from '../helpers/temp-dir.js';


/** examples/agents.ts's `examples` export, which the sandbox offers instead of the demo's requests. */
const examples = ['list open tickets', 'look up ticket 101', 'close ticket 102', 'open a ticket: Printer on floor 3 is jammed', 'runbook printer', 'page on-call: printer on fire'];

const UNSET = ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'SLACK_API_URL', 'MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'POLICY_FILE'];

describe('an agents module in the sandbox, in Chromium', needing('chromium', { timeout: 120_000 }), () => {
  const dataDir = tempDir('agents-module-browser-');
  let app: NpmStart | undefined;
  let database: BotDatabase | undefined;
  let sandbox: SandboxPage | undefined;
  let page: Page;
  let request: SandboxPage['request'];
  let botCard: SandboxPage['botCard'];

  beforeAll(async () => {
    // The example imports the package by name, as a team's module would: its built copy.
    await ensureBuiltPackage();
    database = await botDatabase(dataDir);
    const unset = Object.fromEntries(UNSET.map((name) => [name, undefined]));
    app = await npmStart({ ...unset, AGENTS_MODULE: 'examples/agents.ts', PORT: '0', DATABASE_URL: '', ...database.env, LOG_LEVEL: 'info' });
    sandbox = await openSandboxPage(app.url, 'U0ALICE');
    ({ page, request, botCard } = sandbox);
  }, 300_000);

  afterAll(async () => {
    await sandbox?.close();
    await stopProcessGroup(app?.child);
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the sandbox names the example’s model and offers the example’s own requests to try, not the demo’s', async () => {
    await expect.poll(() => page.locator('body').textContent()).toContain('example/offline-tickets');
    const offered = await page.locator('#examples .example').allTextContents();
    expect(offered).toEqual(examples.map((e) => `@approvals ${e}`));
    expect(offered.join(' ')).not.toMatch(/refund order 1042|delete record abc-123/);
  });

  it('every request it offers is one the example’s agent understands: none gets its “I can …” fallback, and answers are in words', async () => {
    for (const [i, example] of examples.entries()) {
      // The chip fills the composer with what a person then sends.
      await page.locator('#examples .example').nth(i).click();
      expect(await page.locator('#message-input').inputValue()).toBe(`@approvals ${example}`);
      const thread = await request(`@approvals ${example}`);
      await thread.locator('.msg-bot').first().waitFor();
      expect(await thread.textContent()).not.toContain('I can list tickets');
    }
    const thread = await request('@approvals look up ticket 101');
    const said = thread.locator('.msg-bot', { hasText: 'Ticket #101' }).last();
    await said.waitFor();
    expect(await said.textContent()).toContain('Ticket #101 "Checkout page times out under load" (assigned to alice) is open.');
  });

  it('approves closing a ticket: the card, Approve, the ticket closed in the thread', async () => {
    const thread = await request('@approvals close ticket 102');
    const card = botCard(thread, 'Close ticket');
    await expect.poll(() => card.locator('button', { hasText: 'Approve' }).count()).toBe(1);
    expect(await card.textContent()).toContain('102');

    await card.locator('button', { hasText: 'Approve' }).click();
    await expect.poll(() => card.textContent()).toContain('Approved by @alice');
    expect(await card.locator('button').count()).toBe(0);
    // In words, as a model would say it: no JSON.
    const answer = thread.locator('.msg-bot', { hasText: 'Closed ticket' }).last();
    await answer.waitFor();
    expect(await answer.textContent()).toContain('Closed ticket #102 "Refund email has the wrong currency".');
    expect(await answer.textContent()).not.toMatch(/[{}"]status"?:/);
  });

  it('declines opening a ticket with a reason: the card says so, nothing is opened, and the agent says it was not done', async () => {
    const thread = await request('@approvals open a ticket: Printer on floor 3 is jammed');
    const card = botCard(thread, 'Create ticket');
    await card.locator('button', { hasText: 'Decline' }).click();
    const modal = page.locator('.modal');
    await modal.waitFor();
    await modal.locator('textarea, input[type=text]').first().fill('already reported');
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached' });

    await expect.poll(() => card.textContent()).toContain('Declined by @alice');
    expect(await card.textContent()).toContain('already reported');
    expect(await card.locator('button').count()).toBe(0);
    const answer = thread.locator('.msg-bot', { hasText: 'That was not done' }).last();
    await answer.waitFor();
    expect(await answer.textContent()).toContain('already reported');
    expect(await thread.locator('.msg-bot', { hasText: /Opened ticket/ }).count()).toBe(0);
  });

  it('the tracker shows both outcomes: the approved close happened, the declined ticket was never opened', async () => {
    const thread = await request('@approvals list open tickets');
    const answer = thread.locator('.msg-bot', { hasText: /open tickets?:/ }).last();
    await answer.waitFor();
    const text = (await answer.textContent()) ?? '';
    expect(text).toContain('2 open tickets:');
    expect(text).toContain('#101 "Checkout page times out under load" (assigned to alice)');
    expect(text).not.toContain('"assignee"');
    expect(text).not.toContain('Refund email has the wrong currency');
    expect(text).not.toContain('Printer');
  });

  it('an MCP tool (the example\'s stdio server): paging the on-call waits for someone other than the requester, then runs', async () => {
    const thread = await request('@approvals page on-call: printer on fire');
    const card = botCard(thread, 'Runbooks page oncall');
    await expect.poll(() => card.locator('button', { hasText: 'Approve' }).count()).toBe(1);
    expect(await card.textContent()).toContain('MCP server: runbooks, tool page_oncall');
    await page.selectOption('#user-switcher', 'U0BOB');
    await expect.poll(() => new URL(page.url()).searchParams.get('user')).toBe('U0BOB');
    await card.locator('button', { hasText: 'Approve' }).click();
    await expect.poll(() => card.textContent()).toContain('Approved by @bob');
    const answer = thread.locator('.msg-bot', { hasText: 'Paged the' }).last();
    await answer.waitFor();
    expect(await answer.textContent()).toContain('Paged the support on-call: printer on fire');
    await page.selectOption('#user-switcher', 'U0ALICE');
    await expect.poll(() => new URL(page.url()).searchParams.get('user')).toBe('U0ALICE');
  });

  it('shows no script errors along the way', () => {
    expect(sandbox!.pageErrors).toEqual([]);
  });
});
