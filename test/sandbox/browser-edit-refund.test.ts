/**
 * Edit, then approve, in the sandbox in a real browser (Debian's Chromium, driven by
 * playwright-core): alice asks for a $25 refund, bob opens Edit, lowers the amount in the modal
 * and submits; the card shows what changed and who approved, and one refund of the edited amount
 * is made. Skipped where /usr/bin/chromium is missing.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoDb } from '../../src/demo/demo-tables.js';
import { useSandboxInChromium } from '../helpers/sandbox-in-chromium.js';
import { type SandboxPage } from '../helpers/sandbox-page.js';
import { needing } from '../helpers/needs.js';

describe('edit then approve in the sandbox in Chromium', needing('chromium', { timeout: 120_000 }), () => {
  const browser = useSandboxInChromium('edit-refund', 'U0ALICE');
  let page: Page;
  let actAs: SandboxPage['actAs'];
  let request: SandboxPage['request'];
  let botCard: SandboxPage['botCard'];
  beforeAll(() => void ({ page, actAs, request, botCard } = browser.sandbox));

  it('bob edits the amount in the modal, submits, and sees the edited card approved', async () => {
    const thread = await request('@approvals refund order 1042 for $25');
    // The title names the amount, which the edit changes: the card is found by its order.
    const card = botCard(thread, 'on order 1042');
    await card.locator('button', { hasText: 'Edit' }).waitFor();

    await actAs('U0BOB');
    await card.locator('button', { hasText: 'Edit' }).click();
    const modal = page.locator('.modal');
    await modal.waitFor();
    expect(await modal.locator('.modal-title').textContent()).toBe('Edit and approve');
    const amount = modal.locator('.bk-input', { hasText: 'Amount to refund (cents)' }).locator('input');
    expect(await amount.inputValue()).toBe('2500');

    // Zero is refused beside the field, and the modal stays open.
    await amount.fill('0');
    await modal.locator('.modal-submit').click();
    await expect.poll(() => modal.locator('.bk-error').textContent()).toContain('more than zero');

    await amount.fill('1500');
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached' });
    await expect.poll(() => card.textContent(), { timeout: 15_000 }).toContain('Approved by @bob');
    expect(await card.textContent()).toContain('✏️ Edited by @bob');
    expect(await card.textContent()).not.toContain(':pencil2:');
    expect(await card.textContent()).toMatch(/Amount to refund\s*\$25\.00\s*→\s*\$15\.00/);
    expect(await card.locator('button').count()).toBe(0);
    await thread.locator('.msg-bot', { hasText: /\$15\.00/ }).last().waitFor({ timeout: 20_000 });
  });

  it('shows no script errors along the way', () => {
    expect(browser.sandbox.pageErrors).toEqual([]);
  });

  it('after npm start stops, exactly one refund was made, of the edited amount', async () => {
    await browser.stop();
    const database = await browser.openDatabase();
    try {
      const refunds = await demoDb(database.db).selectFrom('demo_refunds').select('amount_cents').where('order_id', '=', '1042').execute();
      expect(refunds.map((r) => r.amount_cents)).toEqual([1500]);
    } finally {
      await database.close();
    }
  });
});
