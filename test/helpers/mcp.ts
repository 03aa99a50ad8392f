import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { AttachedMcpServers } from '../../src/mcp/attach-mcp-servers.js';
import type { McpServerConfig } from '../../src/mcp/mcp-server-config.js';
import { bundledFixture } from './bundled-fixture.js';
import { tempDir } from './temp-dir.js';

/**
 * For a describe block whose tests attach MCP servers: push each attachment onto the list this
 * returns, and it is closed (stdio servers stopped) after its test.
 */
export function mcpServersClosedAfterEach(): AttachedMcpServers[] {
  const attached: AttachedMcpServers[] = [];
  afterEach(async () => {
    await Promise.all(attached.splice(0).map((a) => a.close()));
  });
  return attached;
}

/** A fresh file the test MCP servers append one line per call that took effect to. */
export function callLog(): { path: string; lines: () => string[] } {
  const path = join(tempDir('mcp-'), 'calls.log');
  return { path, lines: () => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []) };
}

/**
 * The tracker MCP server as a stdio child process (a real one, started by the SDK's client, from
 * test/fixtures/mcp/tracker-stdio.ts bundled: see bundledFixture);
 * `rugPullFile` lets a test change its create_issue afterwards (see rugPull).
 */
export function stdioTracker(log: string, extra: Partial<McpServerConfig> = {}, rugPullFile?: string): McpServerConfig {
  return {
    name: 'tracker',
    transport: 'stdio',
    command: process.execPath,
    args: [bundledFixture('test/fixtures/mcp/tracker-stdio.ts')],
    env: { MCP_CALL_LOG: log, ...(rugPullFile ? { MCP_RUG_PULL_FILE: rugPullFile } : {}) },
    cwd: process.cwd(),
    ...extra,
  } as McpServerConfig;
}

export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** A file a tracker server started with it watches; `pull(mode)` changes its create_issue and waits until the server did. */
export function rugPull(): { path: string; pull: (mode: 'silent' | 'notify' | 'schema') => Promise<void> } {
  const path = join(tempDir('mcp-rug-'), 'rug');
  return {
    path,
    pull: async (mode) => {
      writeFileSync(path, mode);
      await eventually(() => {
        if (!existsSync(`${path}.applied`) || readFileSync(`${path}.applied`, 'utf8') !== mode) throw new Error(`the server has not applied ${mode} yet`);
      });
    },
  };
}
