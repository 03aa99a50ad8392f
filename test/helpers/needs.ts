import { existsSync } from 'node:fs';
import { describe, type SuiteOptions, type TestOptions } from 'vitest';
import type { Backend } from './db.js';

declare module '@vitest/runner' {
  interface TaskMeta {
    /** What a skipped group needs to run, as the summary at the end of the run names it. */
    needs?: string;
  }
}

/** Debian's Chromium, driven by playwright-core: nothing is downloaded. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * What some groups of tests need beyond Node: each skipped without it (CI has both; the
 * Chromium check refuses to skip there), and the run's last lines name what would run them.
 */
const NEEDS = {
  postgres: { missing: !process.env.DATABASE_URL, says: 'PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)' },
  chromium: { missing: !existsSync(CHROMIUM) && process.env.CI !== 'true', says: `Chromium at ${CHROMIUM}: apt-get install chromium` },
} as const;

type Need = keyof typeof NEEDS;

const missing = (need: Need): boolean => NEEDS[need].missing;

/** Options for a `describe` that runs only with `need`: skipped without it, saying so. */
export function needing(need: Need, options: SuiteOptions = {}): SuiteOptions {
  return { ...options, skip: NEEDS[need].missing, meta: { ...options.meta, needs: NEEDS[need].says } };
}

/**
 * Every storage group runs on PGlite and on PostgreSQL; without DATABASE_URL the PostgreSQL
 * one is skipped and reported, not left out. `%s` in the name is the backend.
 */
export function describeBackends(name: string, factory: (backend: Backend) => void): void {
  for (const backend of ['postgres', 'pglite'] as const) {
    const options = backend === 'postgres' ? needing('postgres') : {};
    describe(name.replace('%s', backend), options, () => factory(backend));
  }
}

/**
 * Options for a test, in a describeBackends group, of what two PostgreSQL connections do at once
 * (a write waiting on another's lock, two commits racing): PGlite has a single connection, so the
 * PGlite group's copy is skipped and reported as running only in the PostgreSQL group.
 */
export function twoConnections(backend: Backend): TestOptions {
  return backend === 'postgres' ? {} : { skip: true, meta: { needs: 'two database connections at once, which PGlite (one connection) cannot give: they run in the same group on postgres' } };
}

/** `TEST_BACKENDS=all` runs the one-backend groups on both backends, as the storage groups are. */
const ONE_BACKEND_ON_BOTH = process.env.TEST_BACKENDS === 'all';

/**
 * A group of tests of what sits on the runtime: the Slack front end (test/e2e/slack-*) and MCP
 * servers' tools (integration/mcp-*). What they check is that side (payloads, cards, clicks,
 * threads; a server's tools, forms and reconnects), and the statements under it are the
 * runtime's, which the storage groups (describeBackends) run on both backends. So they run once,
 * on PostgreSQL when DATABASE_URL is set (what a deployment runs) and on PGlite otherwise; the
 * embedded PGlite behind Slack is also what the process, sandbox and browser tests start. The
 * other backend's group is skipped and reported, with `TEST_BACKENDS=all` as what runs it. `%s`
 * is the backend.
 */
export function describeOnOneBackend(name: string, factory: (backend: Backend) => void): void {
  const chosen: Backend = missing('postgres') ? 'pglite' : 'postgres';
  for (const backend of ['postgres', 'pglite'] as const) {
    let options: SuiteOptions = {};
    if (backend === 'postgres') options = needing('postgres');
    if (!ONE_BACKEND_ON_BOTH && backend !== chosen && !options.skip) {
      options = { skip: true, meta: { needs: 'TEST_BACKENDS=all (the Slack front end and MCP tools run on one backend; both run the storage under them)' } };
    }
    describe(name.replace('%s', backend), options, () => factory(backend));
  }
}
