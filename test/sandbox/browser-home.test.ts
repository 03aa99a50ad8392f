/**
 * The approvals inbox in the sandbox, in a real browser (Debian's Chromium, driven by
 * playwright-core; nothing is downloaded): `npm start` with no Slack variables, the bot's Home
 * tab opened from the sidebar, a refund approved from it, `/approvals` typed in the composer, and
 * `/approvals <id>` asked by an approver who has not seen the request. Requests read in words,
 * as their cards say them.
 * Skipped where /usr/bin/chromium is missing.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandboxInChromium } from '../helpers/sandbox-in-chromium.js';
import { type SandboxPage } from '../helpers/sandbox-page.js';
import { needing } from '../helpers/needs.js';

describe('the approvals inbox in the sandbox, in Chromium', needing('chromium', { timeout: 120_000 }), () => {
  const browser = useSandboxInChromium('home', 'U0BOB');
  let page: Page;
  let actAs: SandboxPage['actAs'];
  beforeAll(() => void ({ page, actAs } = browser.sandbox));

  const home = () => page.locator('#messages .home-view');

  it('Bob’s Home tab lists Alice’s refund as soon as she asks, and approving it there updates the card in her thread', async () => {
    await page.locator('.sidebar-item[data-tab=home]').click();
    await expect.poll(() => home().textContent(), { timeout: 10_000 }).toContain('Nothing is waiting for your decision.');
    expect(await page.locator('#composer').isHidden()).toBe(true);

    await actAs('U0ALICE');
    await page.locator('.sidebar-item[data-channel=C0GENERAL]').click();
    const card = browser.sandbox.botCard(await browser.sandbox.request('@approvals refund order 1042 for $30'), 'Refund $30.00 on order 1042');
    await card.waitFor();

    // Alice may not approve her own refund: her Home shows it as hers, waiting, with no buttons.
    await page.locator('.sidebar-item[data-tab=home]').click();
    await expect.poll(() => home().textContent(), { timeout: 10_000 }).toMatch(/Requested by you[\s\S]*Refund \$30\.00 on order 1042 #\d+/);
    expect(await home().locator('button', { hasText: 'Approve' }).count()).toBe(0);

    await actAs('U0BOB');
    await expect.poll(() => home().textContent(), { timeout: 10_000 }).toContain('Waiting for you (1)');
    // The call in words, as its card says it, never its JSON.
    expect(await home().textContent()).toContain('Refund $30.00 on order 1042');
    expect(await home().textContent()).toMatch(/Amount\s*\$30\.00/);
    expect(await home().textContent()).not.toContain('"orderId"');
    await home().locator('button', { hasText: 'Approve' }).click();
    await expect.poll(() => home().textContent(), { timeout: 10_000 }).toContain('Waiting for you (0)');
    await expect.poll(() => home().textContent(), { timeout: 10_000 }).toMatch(/Your recent decisions[\s\S]*Refund \$30\.00 on order 1042 #\d+[\s\S]*approved by @bob/);

    // "open thread" leads to the card, which the decision from Home updated, and the run went on.
    await home().locator('a', { hasText: 'open thread' }).first().click();
    const thread = page.locator('#thread-messages');
    await expect.poll(() => thread.locator('.msg-bot', { has: page.locator('.bk-blocks', { hasText: 'issue_refund' }) }).last().textContent(), { timeout: 10_000 }).toContain('Approved by @bob');
    await thread.locator('.msg-bot', { hasText: /\$30\.00/ }).last().waitFor();
  });

  it('/approvals in the composer answers privately, and /approvals <id> with a bad id says how to use it', async () => {
    await page.locator('.sidebar-item[data-channel=C0GENERAL]').click();
    await page.locator('#message-input').fill('/approvals');
    await page.locator('#message-input').press('Enter');
    const answer = page.locator('#messages .msg-ephemeral', { hasText: 'Your recent decisions' }).last();
    await answer.waitFor();
    expect(await answer.textContent()).toContain('approved by @bob');
    expect(await answer.locator('.only-you').textContent()).toBe('Only visible to you');

    await page.locator('#message-input').fill('/approvals nonsense');
    await page.locator('#message-input').press('Enter');
    await page.locator('#messages .msg-ephemeral', { hasText: 'I did not understand that.' }).waitFor();
  });

  it('/approvals <id> asked by someone who may decide it shows it in words, with its buttons', async () => {
    await actAs('U0ALICE');
    await page.locator('.sidebar-item[data-channel=C0GENERAL]').click();
    const card = browser.sandbox.botCard(await browser.sandbox.request('@approvals refund order 1044 for $5'), 'Refund $5.00 on order 1044');
    const id = /Request #(\d+)/.exec((await card.textContent()) ?? '')?.[1];
    expect(id).toBeDefined();
    // Carol is in the finance group the policy names; she did not ask for it and has not seen it.
    await actAs('U0CAROL');
    await page.locator('.sidebar-item[data-channel=C0GENERAL]').click();
    await page.locator('#message-input').fill(`/approvals ${id}`);
    await page.locator('#message-input').press('Enter');
    const answer = page.locator('#messages .msg-ephemeral', { hasText: `#${id}` }).last();
    await answer.waitFor();
    expect(await answer.textContent()).toContain('Refund $5.00 on order 1044');
    expect(await answer.textContent()).not.toContain('only if you asked for it');
    expect(await answer.locator('button', { hasText: 'Approve' }).count()).toBe(1);
  });

  it('shows no script errors along the way', () => {
    expect(browser.sandbox.pageErrors).toEqual([]);
  });
});
