import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import SlowestFirstSequencer from './test/helpers/slowest-first-sequencer.js';

/**
 * Unit test files that need a module graph of their own: vi.mock replaces a module only for the
 * files that import it after the mock, so with shared modules it would miss (the module already
 * loaded by an earlier file) or leak into the next file.
 */
const OWN_MODULES = ['test/unit/agent/request-view.test.ts', 'test/unit/slack/inbox/load-inbox.test.ts'];

/**
 * The sandbox's tests (in process, and through `npm start` in Chromium), the docs' checks, and the
 * end-to-end files that install the package and start the bot as processes (fresh clone, team
 * repository, production process, model providers, README snippets). These last keep nothing in
 * modules that the next file could see (their processes, servers and folders are opened and closed
 * in hooks, and stopAllBotProcesses stops only what the one file running in the worker started),
 * yet in a worker of their own each loaded the simulator, the database modules and vitest again:
 * measured on the five run together, 282.9 → 254.0 s CPU, the workers 26.5 → 18.5 s of it.
 * agents-module.test.ts stays isolated: loading a TypeScript agents module registers tsx for the
 * rest of its process.
 */
const SHARED_TOO = [
  'test/sandbox/**/*.test.ts',
  'test/docs/architecture-paths.test.ts',
  'test/docs/screenshots.test.ts',
  'test/docs/readme-policy-examples.test.ts',
  'test/docs/readme-snippets.test.ts',
  'test/e2e/fresh-clone.test.ts',
  'test/e2e/model-providers.test.ts',
  'test/e2e/production-process.test.ts',
  'test/e2e/team-repository.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One worker more than the machine has cores: a file often waits (on the processes it started,
    // on Chromium, on a lease or a sweep to come due) and a third worker fills those waits. On two
    // cores the suite took 221–227 s with three workers against 232–252 s with two. At most four:
    // each worker's bots and test databases hold PostgreSQL connections (100 by default), and more
    // at once has not been tried.
    maxWorkers: Math.min(availableParallelism() + 1, 4),
    // The slowest files first, so that the workers finish together.
    sequence: { sequencer: SlowestFirstSequencer },
    reporters: ['default', './test/helpers/plain-summary-reporter.ts'],
    // The run's temporary directory (tempDir in test/helpers/temp-dir.ts), removed at its end, and
    // the PostgreSQL schemas the workers hand on between files (test/helpers/db.ts), dropped then.
    globalSetup: ['./test/helpers/temp-root.ts', './test/helpers/pooled-schemas.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...OWN_MODULES],
          // Each file loading the app's modules afresh cost 2 s of CPU on average (179 s of 96
          // files' 167 s CPU): unit files keep no state in modules between files (they restore
          // timers and globals they stub, and mock no module), so a worker loads them once.
          // Checked by running test/unit shuffled (--sequence.shuffle).
          isolate: false,
        },
      },
      {
        extends: true,
        // The runtime's integration tests, the Slack front end's in-process end-to-end tests and the
        // sandbox's tests load the whole app (Bolt, the AI SDK, kysely, PGlite) for each file: 1–2 s
        // of CPU a file, more than most of their tests. Their files open and close their own
        // databases, servers, bots, `npm start`s and browser pages in hooks and leave no state in
        // modules (the app's module state is per Agent, per app or keyed by database), so a worker
        // loads the app once for all of them, and the browser files share one Chromium
        // (test/helpers/shared-chromium.ts). Measured on test/integration: 233 → 136 s CPU; the
        // Slack end-to-end files: 87 → 33 s.
        test: {
          name: 'shared modules',
          include: ['test/integration/**/*.test.ts', 'test/e2e/slack-*.test.ts', ...SHARED_TOO],
          isolate: false,
        },
      },
      {
        extends: true,
        // Everything else leaves something in its process for the next file to find (a module
        // registering tsx, see SHARED_TOO), or mocks modules (OWN_MODULES): a module graph per
        // file, as vitest does by default. One project for both, so that they run side by side
        // rather than the mocking files alone at the end of the run.
        test: {
          name: 'isolated',
          include: ['test/{e2e,docs,sandbox}/**/*.test.ts', ...OWN_MODULES],
          exclude: [...configDefaults.exclude, 'test/e2e/slack-*.test.ts', ...SHARED_TOO],
        },
      },
    ],
  },
});
