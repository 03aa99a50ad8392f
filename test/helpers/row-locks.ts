import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Resolves once a statement is waiting for a lock in this database: the moment a test holding a
 * row knows the statement under test has come to it, rather than a pause it hopes is long enough.
 * `on` narrows it to statements naming that table (other test files share the database, each in a
 * schema of its own); `exceptPid` leaves out the holder's own connection.
 */
export async function someoneWaitsForALock(db: Kysely<any>, { exceptPid = 0, on = '', what = 'no statement came to wait for the held row' }: { exceptPid?: number; on?: string; what?: string } = {}): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND pid <> ${exceptPid} AND datname = current_database() AND strpos(query, ${on}) > 0
    `.execute(db);
    if (Number(rows[0]!.n) > 0) return;
    if (Date.now() > deadline) throw new Error(what);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What a holder transaction and the statement under test came to (see underAHolder): each its value, or its error as text. */
interface HeldOutcome<T> {
  took: string;
  work: T | string;
}

/**
 * Another instance at work on the same rows: a transaction of its own runs `takeFirst`, sets
 * `work` going, waits until `work` waits for it, then runs `takeSecond` (for at most 3 s) and
 * commits. Had `work` taken the second row before waiting for the first, each would wait for the
 * other and PostgreSQL would end one of them as a deadlock (an error in `took` or in `work`).
 */
export async function underAHolder<T>(
  db: Kysely<any>,
  holder: { takeFirst: RawBuilder<unknown>; takeSecond: RawBuilder<unknown> },
  work: () => Promise<T>,
): Promise<HeldOutcome<T>> {
  return db.connection().execute(async (conn) => {
    await sql`BEGIN`.execute(conn);
    try {
      const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(conn)).rows[0]!.pid;
      await holder.takeFirst.execute(conn);
      const working = work().then((value) => value, (error: unknown) => String(error));
      await someoneWaitsForALock(db, { exceptPid: pid });
      await sql`SET LOCAL lock_timeout = '3s'`.execute(conn);
      const took = await holder.takeSecond.execute(conn).then(
        () => 'took it',
        (error: unknown) => String(error),
      );
      await sql`COMMIT`.execute(conn);
      return { took, work: await working };
    } catch (error) {
      await sql`ROLLBACK`.execute(conn);
      throw error;
    }
  });
}
