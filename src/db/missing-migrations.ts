import { sql } from 'kysely';
import type { Db } from './database.js';
import { readMigrations, type Migration } from './migrate.js';

/**
 * The migrations this code needs that the database has not applied, in one statement; throws when
 * the database cannot be reached. Empty means the schema is what this code expects (another
 * instance may have migrated further: newer versions are not this code's concern).
 */
export async function missingMigrations(db: Db, migrations: Migration[] = readMigrations()): Promise<number[]> {
  const applied = await sql<{ version: number }>`SELECT version FROM schema_migrations`.execute(db).then(
    (r) => new Set(r.rows.map((row) => Number(row.version))),
    (error: unknown) => {
      // No table yet (42P01): nothing is applied; anything else (the connection) is the caller's to report.
      if ((error as { code?: string }).code === '42P01') return new Set<number>();
      throw error;
    },
  );
  return migrations.map((m) => m.version).filter((v) => !applied.has(v));
}
