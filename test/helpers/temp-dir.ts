import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * A fresh directory for a test's files (an MCP server's call log, a policy file, a data directory,
 * an installed copy of the package), inside the run's temporary directory, which the global setup
 * (temp-root.ts) removes when the run ends: a helper cannot always tell when the processes it
 * handed a directory to are done with it.
 */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(inject('tempRoot'), prefix));
}
