import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { oncePerRun } from './once-per-run.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One directory for the whole run, under which tempDir (temp-dir.ts) makes the tests' own. */
    tempRoot: string;
  }
}

/** statfs's f_type for tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** What the run's files take at most, with room to spare: two installs of the package, data directories, Chromium's profiles. */
const ROOM_NEEDED = 4 * 1024 ** 3;

/**
 * Where the run's files go: the machine's tmpfs (/dev/shm) when it has the room, else the
 * system's temporary directory. The process tests install the package twice (fresh clone, team
 * repository) and create data directories by the dozen, then remove it all: on the disk, that was
 * a fifth of fresh-clone's CPU (54 → 44 s measured alone), most of it in the kernel. A
 * container's /dev/shm is often 64 MB, hence the check. Test files make their directories with
 * tempDir (temp-dir.ts), under this one.
 */
function base(): string {
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= ROOM_NEEDED) return '/dev/shm';
  } catch {
    // No /dev/shm (macOS, Windows).
  }
  return tmpdir();
}

/**
 * vitest's global setup: the run's temporary directory, one for every project (oncePerRun),
 * removed with everything in it once every file has run. Removing it here, not in the workers, is
 * what makes it happen: workers are ended by vitest, not left to exit. TMPDIR stays as it is: what
 * the helpers keep in os.tmpdir() between runs (PGlite's initialised database, a migrated data
 * directory, the bundled fixtures) is what spares each run their making, about 65 s of the suite's
 * CPU.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = await oncePerRun(
    'slack-approval-bot.tests.temp-root',
    () => mkdtempSync(join(base(), 'slack-approval-bot-tests-')),
    (root) => rmSync(root, { recursive: true, force: true }),
  );
  project.provide('tempRoot', run.value);
  return run.teardown;
}
