import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers only make PGlite start-ups fight each other.
    maxWorkers: 2,
    reporters: ['default', './test/helpers/plain-summary-reporter.ts'],
  },
});
