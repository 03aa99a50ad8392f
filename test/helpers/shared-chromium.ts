import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import { CHROMIUM } from './needs.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let launched: Promise<Browser> | undefined;

/**
 * One Chromium for the test worker, launched when a test first asks: the browser files share
 * their modules within a worker (vitest.config.ts), so each later file reuses it instead of
 * starting a browser of its own (about a second of CPU and more of waiting, each). Playwright
 * closes it when the worker exits: vitest stops a worker with SIGTERM, on which playwright closes
 * the browsers it launched, and kills them should the worker exit some other way.
 */
function sharedBrowser(): Promise<Browser> {
  launched ??= chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }).then(
    (browser) => {
      browser.on('disconnected', () => (launched = undefined));
      return browser;
    },
    (error: unknown) => {
      launched = undefined;
      throw error;
    },
  );
  return launched;
}

/**
 * A browser context of the caller's own in the worker's Chromium: its own cookies, storage and
 * pages, as a browser of its own would give it. Close it when done; the browser stays for the
 * next file.
 */
export async function newChromiumContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return (await sharedBrowser()).newContext(options);
}
