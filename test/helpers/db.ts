import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate, type Migration } from '../../src/db/migrate.js';

export type Backend = 'postgres' | 'pglite';

export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export interface TestDatabase extends Database {
  schema: string;
  /** Another independent connection pool to the same data (Postgres), for races. */
  reopen(): Promise<Database>;
}

/**
 * A fresh, migrated database (its own schema on Postgres, its own instance on PGlite);
 * `migrations` to build one as an older release left it.
 */
export async function createTestDatabase(backend: Backend, dataDir = 'memory://', migrations?: Migration[]): Promise<TestDatabase> {
  const schema = uniqueSchema();
  const options =
    backend === 'postgres'
      ? { databaseUrl: process.env.DATABASE_URL!, schema }
      : { dataDir, schema };
  const database = await openDatabase(options);
  await migrate(database.db, migrations);
  return {
    ...database,
    schema,
    reopen: () =>
      backend === 'postgres'
        ? openDatabase({ databaseUrl: process.env.DATABASE_URL!, schema })
        : // PGlite is one connection: the "other" is the same one, and closing it must not end the test's.
          Promise.resolve({ ...database, close: async () => {} }),
    async close() {
      if (backend === 'postgres') {
        await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(database.db);
      }
      await database.close();
    },
  };
}
