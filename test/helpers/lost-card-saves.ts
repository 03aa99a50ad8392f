import { sql } from 'kysely';
import type { Backend, TestDatabase } from './db.js';

/**
 * The database connection drops while the bot stores where a card went, after chat.postMessage
 * put the card in Slack: a trigger on slack_cards ends the very connection that runs the write
 * (pg_terminate_backend on PostgreSQL; PGlite has one connection the test needs, so there the
 * write fails with the same error, 57P01 admin_shutdown). `what` picks the write: a card's row
 * (saveCard, saveBatchCards), or a copy added to it (addCardCopies). Every such write fails until
 * the returned function lifts the fault, as while a failover is under way. The fault is set and
 * lifted through a pool of its own: a connection the bot's pool has not yet seen close is no
 * concern of the test's.
 */
export async function loseCardSaves(database: TestDatabase, backend: Backend, what: 'card' | 'copies' = 'card'): Promise<() => Promise<void>> {
  const drop =
    backend === 'postgres'
      ? 'PERFORM pg_terminate_backend(pg_backend_pid());'
      : "RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01';";
  const when = what === 'card' ? 'BEFORE INSERT' : 'BEFORE UPDATE OF copies';
  const only = what === 'copies' ? 'WHEN (NEW.copies IS DISTINCT FROM OLD.copies)' : '';
  const admin = await database.reopen();
  try {
    await sql.raw(`CREATE OR REPLACE FUNCTION lose_card_save() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${drop} RETURN NEW; END $$`).execute(admin.db);
    // A test that failed before lifting its fault leaves none behind for the next.
    await sql`DROP TRIGGER IF EXISTS lose_card_save ON slack_cards`.execute(admin.db);
    await sql.raw(`CREATE TRIGGER lose_card_save ${when} ON slack_cards FOR EACH ROW ${only} EXECUTE FUNCTION lose_card_save()`).execute(admin.db);
  } finally {
    await admin.close();
  }
  return async () => {
    const again = await database.reopen();
    try {
      await sql`DROP TRIGGER lose_card_save ON slack_cards`.execute(again.db);
      await sql`DROP FUNCTION lose_card_save()`.execute(again.db);
    } finally {
      await again.close();
    }
  };
}
