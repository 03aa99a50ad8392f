/**
 * Parallel calls in the sandbox in a real browser (Debian's Chromium, driven by playwright-core):
 * three deletions asked in one message are one model step's calls, shown on one batch card; alice
 * clicks Approve all and the card shows every call decided, and the answer follows. Skipped where
 * /usr/bin/chromium is missing.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoDb } from '../../src/demo/demo-tables.js';
import { useSandboxInChromium } from '../helpers/sandbox-in-chromium.js';
import { type SandboxPage } from '../helpers/sandbox-page.js';
import { needing } from '../helpers/needs.js';

describe('a batch card in the sandbox in Chromium', needing('chromium', { timeout: 120_000 }), () => {
  const browser = useSandboxInChromium('batch', 'U0ALICE');
  let page: Page;
  let request: SandboxPage['request'];
  let botCard: SandboxPage['botCard'];
  beforeAll(() => void ({ page, request, botCard } = browser.sandbox));

  it('one card for three deletions; Approve all decides them all', async () => {
    const thread = await request('@approvals delete record abc-123 and record def-456 and record ghi-789');
    const card = botCard(thread, '3 actions need approval');
    await card.waitFor();
    expect(await thread.locator('.msg-bot', { hasText: 'actions need approval' }).count()).toBe(1);
    expect(await card.textContent()).toContain('Waiting for 3 of 3 decisions');
    for (const n of [1, 2, 3]) expect(await card.locator('button', { hasText: `Approve #${n}` }).count()).toBe(1);

    // Deletions are high-risk in the demo: Approve all asks to confirm first, naming them.
    const dialog = page.waitForEvent('dialog');
    const clicked = card.locator('button', { hasText: 'Approve all' }).click();
    const confirm = await dialog;
    expect(confirm.message()).toContain('Delete record abc-123');
    await confirm.accept();
    await clicked;
    await expect.poll(() => card.textContent(), { timeout: 20_000 }).toContain('All decided: the run continues');
    expect((await card.textContent())!.match(/Approved by @alice/g)).toHaveLength(3);
    expect(await card.locator('button').count()).toBe(0);
    await thread.locator('.msg-bot', { hasText: 'ghi-789' }).filter({ hasNotText: 'actions need approval' }).last().waitFor({ timeout: 20_000 });
  });

  it('shows no script errors along the way', () => {
    expect(browser.sandbox.pageErrors).toEqual([]);
  });

  it('after npm start stops, all three records are deleted', async () => {
    await browser.stop();
    const database = await browser.openDatabase();
    try {
      const rows = await demoDb(database.db).selectFrom('demo_records').select(['id', 'deleted_at']).where('id', 'in', ['abc-123', 'def-456', 'ghi-789']).execute();
      expect(rows.filter((r) => r.deleted_at !== null).map((r) => r.id).sort()).toEqual(['abc-123', 'def-456', 'ghi-789']);
    } finally {
      await database.close();
    }
  });
});
