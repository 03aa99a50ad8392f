import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One directory for the whole run, under which tempDir (temp-dir.ts) makes the tests' own. */
    tempRoot: string;
  }
}

/**
 * vitest's global setup: the run's temporary directory, removed with everything in it once every
 * file has run. Removing it here, not in the workers, is what makes it happen: workers are ended
 * by vitest, not left to exit.
 */
export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), 'slack-approval-bot-tests-'));
  project.provide('tempRoot', root);
  return () => rmSync(root, { recursive: true, force: true });
}
