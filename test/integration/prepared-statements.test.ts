import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { needing } from '../helpers/needs.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { maxPreparedStatements } from '../../src/db/prepared-statement-client.js';

const databaseUrl = process.env.DATABASE_URL;
let database: Database | undefined;

afterEach(async () => {
  await database?.close();
  database = undefined;
});

/** The statements this session (the pool's only connection) holds prepared. */
async function prepared(db: Database['db']): Promise<string[]> {
  const result = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements ORDER BY prepare_time`.execute(db);
  return result.rows.map((r) => r.statement);
}

describe('statements prepared per connection (postgres)', needing('postgres'), () => {
  it('prepares a parameterised statement once and reuses it, with the same results', async () => {
    database = await openDatabase({ databaseUrl: databaseUrl!, poolSize: 1 });
    const text = (n: number) => sql<{ doubled: number }>`SELECT ${n}::int * 2 AS doubled`;
    expect((await text(2).execute(database.db)).rows).toEqual([{ doubled: 4 }]);
    expect((await text(21).execute(database.db)).rows).toEqual([{ doubled: 42 }]);
    expect(await prepared(database.db)).toEqual(['SELECT $1::int * 2 AS doubled']);
  });

  it('runs parameterless SQL, several statements at once (migration files), unprepared', async () => {
    database = await openDatabase({ databaseUrl: databaseUrl!, poolSize: 1 });
    await sql.raw('CREATE TEMP TABLE prep_t (n int); INSERT INTO prep_t VALUES (1), (2); INSERT INTO prep_t VALUES (3)').execute(database.db);
    const total = await sql<{ total: number }>`SELECT sum(n)::int AS total FROM prep_t`.execute(database.db);
    expect(total.rows).toEqual([{ total: 6 }]);
    expect(await prepared(database.db)).toEqual([]);
  });

  it('stops preparing new texts at the cap, and still runs them', async () => {
    database = await openDatabase({ databaseUrl: databaseUrl!, poolSize: 1 });
    const count = maxPreparedStatements + 20;
    for (let i = 0; i < count; i += 1) {
      const result = await sql<{ v: number }>`SELECT ${i}::int + ${sql.raw(String(i))} AS v`.execute(database.db);
      expect(result.rows[0]!.v).toBe(2 * i);
    }
    expect(await prepared(database.db)).toHaveLength(maxPreparedStatements);
  });

  it('prepares nothing when turned off (for poolers that cannot keep them)', async () => {
    database = await openDatabase({ databaseUrl: databaseUrl!, poolSize: 1, preparedStatements: false });
    const result = await sql<{ v: number }>`SELECT ${20}::int + 1 AS v`.execute(database.db);
    expect(result.rows).toEqual([{ v: 21 }]);
    expect(await prepared(database.db)).toEqual([]);
  });

  it('keeps statements apart per connection: a statement prepared on one is prepared again on another', async () => {
    database = await openDatabase({ databaseUrl: databaseUrl!, poolSize: 2 });
    const db = database.db;
    // Two transactions at once hold both connections.
    await Promise.all(
      [1, 2].map((n) =>
        db.transaction().execute(async (trx) => {
          await sql`SELECT pg_sleep(0.05), ${n}::int AS n`.execute(trx);
          expect(await prepared(trx as never)).toEqual(['SELECT pg_sleep(0.05), $1::int AS n']);
        }),
      ),
    );
  });
});
