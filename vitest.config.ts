import { defineConfig } from 'vitest/config';
import SlowestFirstSequencer from './test/helpers/slowest-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers only make PGlite start-ups fight each other.
    maxWorkers: 2,
    // The slowest files first, so that the two workers finish together.
    sequence: { sequencer: SlowestFirstSequencer },
    reporters: ['default', './test/helpers/plain-summary-reporter.ts'],
  },
});
