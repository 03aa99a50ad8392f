/**
 * A refund asked in a DM with the bot, in the sandbox in a real browser (Debian's Chromium, driven
 * by playwright-core): only alice sees her DM and she may not approve her own refund, so the card
 * goes to the refund approvers' DMs (finance: carol). Carol approves from hers, the refund runs
 * once, and alice's DM gets the answer. Skipped where /usr/bin/chromium is missing.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoDb } from '../../src/demo/demo-tables.js';
import { useSandboxInChromium } from '../helpers/sandbox-in-chromium.js';
import { type SandboxPage } from '../helpers/sandbox-page.js';
import { needing } from '../helpers/needs.js';

describe('a refund asked in a DM with the bot, in the sandbox in Chromium', needing('chromium', { timeout: 120_000 }), () => {
  const browser = useSandboxInChromium('dm-refund', 'U0ALICE', 'D0ALICE');
  let page: Page;
  let actAs: SandboxPage['actAs'];
  beforeAll(() => void ({ page, actAs } = browser.sandbox));

  const cardIn = (scope: string) => page.locator(`${scope} .msg-bot`, { has: page.locator('.bk-blocks', { hasText: /Refund \$[\d,.]+ on order/ }) }).last();

  it('alice is told where it went, carol approves it from her DM with the bot, and alice’s DM gets the answer', async () => {
    await page.locator('.sidebar-item[data-channel=D0ALICE]').click();
    await page.locator('#message-input').fill('refund order 1042 for $25');
    await page.locator('#message-input').press('Enter');
    // In a DM the bot answers in the conversation itself, not in a thread.
    const dm = page.locator('#messages');
    const notice = dm.locator('.msg-bot', { hasText: 'Nobody in this conversation can approve this' }).last();
    await notice.waitFor();
    expect(await notice.textContent()).toContain('sent it to @finance or @bob by DM');
    // Slack draws the bot's :outbox_tray: as the emoji, and so does the sandbox.
    expect(await notice.textContent()).toMatch(/^.*📤 Nobody in this conversation can approve this/);
    expect(await notice.textContent()).not.toContain(':outbox_tray:');

    await actAs('U0CAROL');
    await page.locator('.sidebar-item[data-channel=D0CAROL]').click();
    const card = cardIn('#messages');
    await card.waitFor();
    expect(await card.textContent()).toContain('Refund $25.00 on order 1042');
    await card.locator('button', { hasText: 'Approve' }).click();
    await expect.poll(() => cardIn('#messages').textContent(), { timeout: 15_000 }).toContain('Approved by @carol');

    await actAs('U0ALICE');
    await page.locator('.sidebar-item[data-channel=D0ALICE]').click();
    await expect.poll(() => cardIn('#messages').textContent(), { timeout: 15_000 }).toContain('Approved by @carol');
    await dm.locator('.msg-bot', { hasText: /\$25\.00/ }).last().waitFor({ timeout: 20_000 });
  });

  it('shows no script errors along the way', () => {
    expect(browser.sandbox.pageErrors).toEqual([]);
  });

  it('after npm start stops, exactly one refund of $25 was made on order 1042', async () => {
    await browser.stop();
    const database = await browser.openDatabase();
    try {
      const refunds = await demoDb(database.db).selectFrom('demo_refunds').select('amount_cents').where('order_id', '=', '1042').execute();
      expect(refunds.map((r) => r.amount_cents)).toEqual([2500]);
    } finally {
      await database.close();
    }
  });
});
