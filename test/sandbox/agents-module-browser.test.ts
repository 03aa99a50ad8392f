/**
 * An agents module in the sandbox, in a real browser (Debian's Chromium, driven by
 * playwright-core): `AGENTS_MODULE=examples/agents.ts npm start` with no Slack variables, the
 * example's agent mentioned in #general, one tool call approved and another declined through
 * the UI, and the thread showing both outcomes. Skipped where /usr/bin/chromium is missing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { chromiumMissing, openSandboxPage, type SandboxPage } from '../helpers/sandbox-page.js';
import { freePort, npmStart, stopProcessGroup, type NpmStart } from './npm-start.js';

const UNSET = ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'SLACK_API_URL', 'MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'POLICY_FILE'];

describe.skipIf(chromiumMissing)('an agents module in the sandbox, in Chromium', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agents-module-browser-'));
  let app: NpmStart | undefined;
  let sandbox: SandboxPage | undefined;
  let page: Page;
  let request: SandboxPage['request'];
  let botCard: SandboxPage['botCard'];

  beforeAll(async () => {
    // The example imports the package by name, as a team's module would: its built copy.
    await ensureBuiltPackage();
    const port = await freePort();
    const unset = Object.fromEntries(UNSET.map((name) => [name, undefined]));
    app = await npmStart({ ...unset, AGENTS_MODULE: 'examples/agents.ts', PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' });
    sandbox = await openSandboxPage(app.url, 'U0ALICE');
    ({ page, request, botCard } = sandbox);
  }, 300_000);

  afterAll(async () => {
    await sandbox?.browser.close();
    await stopProcessGroup(app?.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the sandbox names the example’s model', async () => {
    await expect.poll(() => page.locator('body').textContent()).toContain('example/offline-tickets');
  });

  it('approves closing a ticket: the card, Approve, the ticket closed in the thread', async () => {
    const thread = await request('@approvals close ticket 102');
    const card = botCard(thread, 'Close ticket');
    await expect.poll(() => card.locator('button', { hasText: 'Approve' }).count()).toBe(1);
    expect(await card.textContent()).toContain('102');

    await card.locator('button', { hasText: 'Approve' }).click();
    await expect.poll(() => card.textContent()).toContain('Approved by @alice');
    expect(await card.locator('button').count()).toBe(0);
    const answer = thread.locator('.msg-bot', { hasText: /Done:/ }).last();
    await answer.waitFor();
    expect(await answer.textContent()).toContain('"status":"closed"');
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
    // A regular expression: Playwright's string match ignores case, and "not done:" would match.
    expect(await thread.locator('.msg-bot', { hasText: /Done:/ }).count()).toBe(0);
  });

  it('the tracker shows both outcomes: the approved close happened, the declined ticket was never opened', async () => {
    const thread = await request('@approvals list open tickets');
    const answer = thread.locator('.msg-bot', { hasText: /Done:/ }).last();
    await answer.waitFor();
    const text = (await answer.textContent()) ?? '';
    expect(text).toContain('Checkout page times out under load');
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
    const answer = thread.locator('.msg-bot', { hasText: /Done:/ }).last();
    await answer.waitFor();
    expect(await answer.textContent()).toContain('Paged the support on-call: printer on fire');
    await page.selectOption('#user-switcher', 'U0ALICE');
    await expect.poll(() => new URL(page.url()).searchParams.get('user')).toBe('U0ALICE');
  });

  it('shows no script errors along the way', () => {
    expect(sandbox!.pageErrors).toEqual([]);
  });
});
