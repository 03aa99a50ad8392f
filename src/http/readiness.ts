import type { Db } from '../db/database.js';
import { missingMigrations } from '../db/missing-migrations.js';
import { readMigrations } from '../db/migrate.js';
import { errorMessage } from '../error-message.js';
import { scrubSecrets } from '../logger.js';

export type Readiness =
  | { ready: true }
  | { ready: false; reason: 'shutting_down' | 'database_unreachable' | 'migrations_pending' | 'slack_auth_failed'; detail?: string };

export interface ReadinessOptions {
  db: Db;
  /** Slack's auth.test for the bot token; absent for the sandbox (its Slack is in-process). */
  slackAuth?: () => Promise<unknown>;
  /** How long an auth.test that succeeded counts (default 60 s): probes every few seconds must not spend Slack's rate limit. */
  slackAuthTtlMs?: number;
}

export interface ReadinessCheck {
  check(): Promise<Readiness>;
  /** From now on not ready: the process is draining, and a load balancer should send new requests elsewhere. */
  markStopping(): void;
}

/**
 * What GET /readyz answers: ready only when this instance can take a request end to end, i.e. its
 * database answers with every migration it needs applied, and Slack accepts its token. The
 * migration list is read once; the database is asked on every probe (one small statement).
 */
export function readinessCheck(options: ReadinessOptions): ReadinessCheck {
  const migrations = readMigrations();
  const ttl = options.slackAuthTtlMs ?? 60_000;
  let stopping = false;
  let authOkAt = -Infinity;
  return {
    markStopping: () => void (stopping = true),
    async check() {
      if (stopping) return { ready: false, reason: 'shutting_down' };
      let missing: number[];
      try {
        missing = await missingMigrations(options.db, migrations);
      } catch (error) {
        // The code only (ECONNREFUSED, 57P01, ...): the message can name hosts, and /readyz may be public.
        return { ready: false, reason: 'database_unreachable', detail: String((error as { code?: unknown }).code ?? 'error') };
      }
      if (missing.length > 0) return { ready: false, reason: 'migrations_pending', detail: `not applied: ${missing.join(', ')}` };
      if (options.slackAuth && performance.now() - authOkAt > ttl) {
        try {
          await options.slackAuth();
          authOkAt = performance.now();
        } catch (error) {
          // Slack's error code (invalid_auth, token_revoked, ...) or what failed on the way.
          const code = (error as { data?: { error?: unknown }; code?: unknown }).data?.error ?? (error as { code?: unknown }).code;
          return { ready: false, reason: 'slack_auth_failed', detail: scrubSecrets(String(code ?? errorMessage(error))) };
        }
      }
      return { ready: true };
    },
  };
}
