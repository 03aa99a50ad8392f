import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { botDatabase, type BotDatabase } from './bot-database.js';
import { npmStart, stopProcessGroup, type NpmStart } from './sandbox/npm-start.js';
import { openSandboxPage, type SandboxPage } from './sandbox-page.js';
import { tempDir } from './temp-dir.js';

interface SandboxInChromium {
  readonly sandbox: SandboxPage;
  /** The sandbox's database, opened in the test's process (after `stop()`, for PGlite); dropped after the suite. */
  openDatabase(): Promise<Database>;
  /** Closes the page and stops `npm start` before the suite ends (the hooks then skip them). */
  stop(): Promise<void>;
}

/**
 * For a browser test's describe block: `npm start` with no Slack variables and a free port (and
 * `env` on top, e.g. MCP_SERVERS), the sandbox opened in Chromium as `user` (on `channel`), all
 * torn down after. These files are about the sandbox's features, not its embedded database: like
 * the other bot processes the tests start, it runs in a schema of its own on PostgreSQL when
 * DATABASE_URL is set, else on a data directory as an earlier start left it (bot-database.ts). The
 * README's quick start on the embedded default, in Chromium, is browser.test.ts's.
 */
export function useSandboxInChromium(
  name: string,
  user: string,
  channel?: string,
  env: Record<string, string | undefined> = {},
  /** A line the start must have printed before the page opens (e.g. an MCP server's connection). */
  printed?: string,
): SandboxInChromium {
  const dataDir = tempDir(`sandbox-${name}-`);
  let database: BotDatabase | undefined;
  let app: NpmStart | undefined;
  let sandbox: SandboxPage | undefined;
  const stop = async () => {
    await sandbox?.close();
    await stopProcessGroup(app?.child);
    app = undefined;
  };
  beforeAll(async () => {
    database = await botDatabase(dataDir);
    app = await npmStart({ PORT: '0', DATABASE_URL: '', LOG_LEVEL: 'info', ...database.env, ...env });
    if (printed) await app.printed(printed);
    sandbox = await openSandboxPage(app.url, user, channel);
  }, 120_000);
  afterAll(async () => {
    await stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    get sandbox() {
      if (!sandbox) throw new Error('the sandbox is opened in beforeAll');
      return sandbox;
    },
    openDatabase() {
      if (!database) throw new Error('the database is made in beforeAll');
      return database.open();
    },
    stop,
  };
}
