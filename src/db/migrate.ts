import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Db } from './database.js';
import { packagePath } from '../package-path.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Numbers no new migration may take. Databases that applied one keep its row in
 * schema_migrations, so a new file with that number would be skipped there and
 * run everywhere else. 2 created the demo's tables, which the demo now creates
 * itself (src/demo/demo-tables.ts).
 */
export const RETIRED_VERSIONS: ReadonlySet<number> = new Set([2]);

export function readMigrations(dir = packagePath('migrations')): Migration[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  const migrations = files.map((file) => {
    const match = /^(\d+)_([a-z0-9_-]+)\.sql$/i.exec(file);
    if (!match) throw new Error(`Migration file name must be NNN_name.sql: ${file}`);
    if (RETIRED_VERSIONS.has(Number(match[1]))) {
      throw new Error(`Migration version ${Number(match[1])} is retired (databases may have applied it already); use the next free number: ${file}`);
    }
    return { version: Number(match[1]), name: match[2]!, sql: readFileSync(join(dir, file), 'utf8') };
  });
  migrations.forEach((m, i) => {
    if (i > 0 && m.version === migrations[i - 1]!.version) {
      throw new Error(`Two migrations share version ${m.version}`);
    }
  });
  return migrations;
}

/**
 * Applies pending migrations in order, each in its own transaction. A
 * transaction-scoped advisory lock (keyed on the schema) makes processes that
 * start together take turns, and each re-checks what is applied after getting
 * the lock, so every migration runs exactly once. A version the database has
 * applied but no file names any more (see RETIRED_VERSIONS) is left as it is.
 */
export async function migrate(db: Db, migrations = readMigrations()): Promise<number[]> {
  const applied: number[] = [];
  for (const migration of migrations) {
    const ran = await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtext('approval-bot-migrations:' || current_schema()))`.execute(trx);
      await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`.execute(trx);
      const done = await trx
        .selectFrom('schema_migrations')
        .select('version')
        .where('version', '=', migration.version)
        .executeTakeFirst();
      if (done) return false;
      await sql.raw(migration.sql).execute(trx);
      await trx
        .insertInto('schema_migrations')
        .values({ version: migration.version, name: migration.name })
        .execute();
      return true;
    });
    if (ran) applied.push(migration.version);
  }
  return applied;
}
