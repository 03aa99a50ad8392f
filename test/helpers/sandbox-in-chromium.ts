import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { migratedDataDir } from './migrated-data-dir.js';
import { npmStart, stopProcessGroup, type NpmStart } from './sandbox/npm-start.js';
import { openSandboxPage, type SandboxPage } from './sandbox-page.js';

interface SandboxInChromium {
  /** Where the sandbox keeps its PGlite data: still there after `stop()`, removed after the suite. */
  readonly dataDir: string;
  readonly sandbox: SandboxPage;
  /** Closes the page and stops `npm start` before the suite ends (the hooks then skip them). */
  stop(): Promise<void>;
}

/**
 * For a browser test's describe block: `npm start` with no Slack variables and a free port (and
 * `env` on top, e.g. MCP_SERVERS), on a data dir as an earlier start left it (migrated-data-dir.ts:
 * a first start's initdb and migrations are fresh-clone's quick start's), the sandbox opened in Chromium as
 * `user` (on `channel`), all torn down after.
 */
export function useSandboxInChromium(name: string, user: string, channel?: string, env: Record<string, string | undefined> = {}): SandboxInChromium {
  const dataDir = mkdtempSync(join(tmpdir(), `sandbox-${name}-`));
  let app: NpmStart | undefined;
  let sandbox: SandboxPage | undefined;
  const stop = async () => {
    await sandbox?.close();
    await stopProcessGroup(app?.child);
    app = undefined;
  };
  beforeAll(async () => {
    await migratedDataDir(dataDir);
    app = await npmStart({ PORT: '0', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info', ...env });
    sandbox = await openSandboxPage(app.url, user, channel);
  }, 120_000);
  afterAll(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    get sandbox() {
      if (!sandbox) throw new Error('the sandbox is opened in beforeAll');
      return sandbox;
    },
    stop,
  };
}
