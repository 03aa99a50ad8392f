import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { newChromiumContext } from './shared-chromium.js';
import { tempDir } from './temp-dir.js';

/**
 * Where docsScreenshot writes: docs/ with UPDATE_SCREENSHOTS=1 (then commit them), else a temp
 * folder, so an ordinary run leaves the working tree alone but still takes every screenshot.
 */
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs') : tempDir('sandbox-shots-');

/**
 * A screenshot the docs show, named as they name it (e.g. `sandbox-approval-card.png`): the
 * README's pictures come from the browser tests, and test/docs/screenshots.test.ts fails for a
 * picture the docs name that no test takes this way. The mouse is moved aside first, so no hover
 * style shows.
 */
export async function docsScreenshot(page: Page, name: string): Promise<string> {
  const path = join(SHOTS, name);
  await page.mouse.move(1, 1);
  await page.screenshot({ path });
  return path;
}

/** The sandbox open in Chromium as one person, with the moves a person makes in it. */
export interface SandboxPage {
  page: Page;
  /** Closes the page (its browser context): the worker's Chromium stays for the next file. */
  close(): Promise<void>;
  /** Script errors and console errors the page has shown so far. */
  pageErrors: string[];
  /** Switches to another person with the user switcher. */
  actAs(user: string): Promise<void>;
  /** Types a request in the open channel and opens its thread once the bot has answered in it. */
  request(text: string): Promise<Locator>;
  /** The latest of the bot's messages in `thread` whose blocks show `heading`. */
  botCard(thread: Locator, heading: string | RegExp): Locator;
}

/** Opens the sandbox at `url` as `user` in `channel` (#general unless said) and waits until it shows the bot as up. */
export async function openSandboxPage(url: string, user: string, channel = 'C0GENERAL'): Promise<SandboxPage> {
  const context = await newChromiumContext({ viewport: { width: 1280, height: 820 } });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => void (m.type() === 'error' && pageErrors.push(m.text())));
  try {
    await page.goto(`${url}/?user=${user}&channel=${channel}`);
    await page.locator('#bot-status.ok').waitFor();
  } catch (error) {
    await context.close();
    throw error;
  }
  return {
    page,
    close: () => context.close(),
    pageErrors,
    actAs: async (other) => {
      await page.selectOption('#user-switcher', other);
      await expect.poll(() => new URL(page.url()).searchParams.get('user')).toBe(other);
      // The page takes the new person's state (and its address) at once but draws it on the next
      // animation frame: a frame asked for now comes after that drawing, so what the test reads
      // next is the new person's view, not the last of the old one's. (A page Chromium is not
      // drawing gets no frame, its own drawing none either: the second only bounds the wait.)
      await page.evaluate('new Promise((resolve) => { requestAnimationFrame(() => resolve()); setTimeout(resolve, 1000); })');
    },
    request: async (text) => {
      // The same request may have been made before: wait for this one's message, not an earlier one's.
      const same = page.locator('#messages .msg', { hasText: text });
      const before = await same.count();
      await page.locator('#message-input').fill(text);
      await page.locator('#message-input').press('Enter');
      await expect.poll(() => same.count()).toBe(before + 1);
      await same.nth(before).locator('.thread-link').click();
      return page.locator('#thread-messages');
    },
    botCard: (thread, heading) => thread.locator('.msg-bot', { has: page.locator('.bk-blocks', { hasText: heading }) }).last(),
  };
}
