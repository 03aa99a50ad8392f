import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { recordApprovalVote } from '../../src/db/pending-actions.js';
import { slackDb } from '../../src/slack/context.js';
import { markRunShown } from '../../src/slack/thread/kept-results.js';
import { loadCardState } from '../../src/slack/card/cards.js';
import type { DB } from '../../src/db/schema.js';
import { urlWithSettings } from '../helpers/bot-database.js';
import { uniqueSchema } from '../helpers/db.js';
import { needing } from '../helpers/needs.js';

/** `count` suspended runs, each waiting on `perRun` approval requests; the requests' ids, run by run. */
async function waitingRuns(db: Kysely<DB>, prefix: string, count: number, perRun: number): Promise<number[]> {
  await sql`
    INSERT INTO run_snapshots (run_id, root_run_id, agent_id, status, snapshot)
    SELECT ${prefix} || g, ${prefix} || g, 'ops', 'suspended', '{}' FROM generate_series(1, ${count}::int) g
  `.execute(db);
  const rows = await sql<{ id: number }>`
    INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, status, policy_version)
    SELECT ${prefix} || g, ${prefix} || g, 'call-' || c, 'delete_record', 'approval', '{}', repeat('a', 64), 'pending', 'v1'
    FROM generate_series(1, ${count}::int) g, generate_series(1, ${perRun}::int) c
    ORDER BY g, c
    RETURNING id
  `.execute(db);
  return rows.rows.map((r) => r.id);
}

/**
 * What `work` read: index entries of the open requests, and sequential scans of the requests, the
 * runs and the cards. The backend's counts not yet flushed to the shared statistics, which no
 * flush changes within a transaction, before and after.
 */
async function readsOf(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<unknown>): Promise<{ openEntries: number; seqScans: number }> {
  const counts = async (trx: Kysely<DB>) => {
    const { rows } = await sql<{ open_entries: string; seq_scans: string }>`
      SELECT pg_stat_get_xact_tuples_returned('pending_actions_one_open'::regclass) AS open_entries,
             (SELECT sum(seq_scan) FROM pg_stat_xact_user_tables
              WHERE relid IN ('pending_actions'::regclass, 'run_snapshots'::regclass, 'slack_cards'::regclass)) AS seq_scans
    `.execute(trx);
    return { openEntries: Number(rows[0]!.open_entries), seqScans: Number(rows[0]!.seq_scans) };
  };
  return db.transaction().execute(async (trx) => {
    const before = await counts(trx);
    await work(trx);
    const after = await counts(trx);
    return { openEntries: after.openEntries - before.openEntries, seqScans: after.seqScans - before.seqScans };
  });
}

/** The test database's URL for connections that make each statement's generic plan on its first run. */
const genericPlansUrl = () => urlWithSettings(process.env.DATABASE_URL!, { plan_cache_mode: 'force_generic_plan' });

/** A card for each request. */
async function cardsFor(db: Kysely<DB>, actionIds: number[]): Promise<void> {
  await sql`
    INSERT INTO slack_cards (action_id, channel, ts, kind, drawn)
    SELECT id, 'C0CARDS', '1700000000.' || lpad(id::text, 6, '0'), 'approval', 'pending' FROM unnest(${actionIds}::int[]) id
  `.execute(db);
}

/**
 * A connection keeps one plan per statement, made when it first ran: on a new install, with the
 * tables nearly empty and not yet analyzed (or never, where autovacuum is off). The statements of
 * every approval cycle must still go by the ids they are given as the tables fill up: a decision
 * must find its run's other open requests by the run, not read every open request of every run
 * (with thousands waiting, each Approve would read them all), and a run shown must mark its
 * cards, not read every card ever posted.
 */
describe('the plans a connection keeps from a new install go by id as the tables fill up', needing('postgres'), () => {
  const schema = uniqueSchema('plan');
  let database: Database;
  const vote = (db: Kysely<DB>, actionId: number) => recordApprovalVote(db, { actionId, actor: 'U0APPROVER', policyVersion: 'v1', grantTtlMs: 60_000 });

  beforeAll(async () => {
    // One connection, and the statement's generic plan from its first execution (PostgreSQL's own
    // choice makes it by the sixth): the plan is made here on a nearly empty table.
    database = await openDatabase({ databaseUrl: genericPlansUrl(), schema, poolSize: 1 });
    await migrate(database.db);
    // The decision's plan, made while the tables hold one run.
    const [early] = await waitingRuns(database.db, 'early', 1, 1);
    expect((await vote(database.db, early!))?.leased?.snapshot.run_id).toBe('early1');
    // Then the tables fill up: 2,000 runs waiting, each with its card.
    await cardsFor(database.db, await waitingRuns(database.db, 'other', 2_000, 1));
  });

  afterAll(async () => {
    await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(database.db);
    await database.close();
  });

  it('2,000 requests of other runs waiting: an approval reads only its run’s, and leases the run when it was the last', async () => {
    const [first, second] = await waitingRuns(database.db, 'two', 1, 2);

    let decided: Awaited<ReturnType<typeof vote>>;
    const firstReads = await readsOf(database.db, async (trx) => (decided = await vote(trx, first!)));
    expect(decided!.row.status).toBe('approved');
    expect(decided!.leased).toBeUndefined(); // its sibling is still open
    const secondReads = await readsOf(database.db, async (trx) => (decided = await vote(trx, second!)));
    expect(decided!.leased?.snapshot.run_id).toBe('two1');

    for (const reads of [firstReads, secondReads]) {
      expect(reads.openEntries).toBeLessThan(10);
      expect(reads.seqScans).toBe(0);
    }
  });

  it('10,000 cards posted: a run shown marks its cards as drawn by their ids, not by reading every card', async () => {
    // 8,000 more cards (their runs long over), then a run with two.
    await cardsFor(database.db, await waitingRuns(database.db, 'past', 8_000, 1));
    const [one, two] = await waitingRuns(database.db, 'shown', 1, 2);
    await cardsFor(database.db, [one!, two!]);
    // A connection opened now, on a table large enough for the primary key to pay by the planner's
    // reckoning (below a few thousand cards it reckons a scan cheaper, and it is, nearly): the plan
    // it keeps goes by id. Joined with the marks as a table, the plan read every card up to tens of
    // thousands of them.
    const later = await openDatabase({ databaseUrl: genericPlansUrl(), schema, poolSize: 1 });
    try {
      const reads = await readsOf(later.db, (trx) =>
        markRunShown(slackDb(trx), 'shown1', [
          { actionId: one!, key: 'first' },
          { actionId: two!, key: 'redrawn' },
          { actionId: one!, key: 'approved' },
        ]),
      );
      expect(reads.seqScans).toBe(0);
    } finally {
      await later.close();
    }
    const { rows } = await sql<{ action_id: number; drawn: string }>`SELECT action_id, drawn FROM slack_cards WHERE action_id IN (${one!}, ${two!}) ORDER BY action_id`.execute(database.db);
    // Each card's latest mark.
    expect(rows).toEqual([
      { action_id: one, drawn: 'approved' },
      { action_id: two, drawn: 'redrawn' },
    ]);
  });
});

/**
 * PostgreSQL plans a prepared statement for its values on its first five runs, then keeps a plan
 * made for any values unless that plan looks dearer; if it does, it plans again on every call. The
 * click's read of its request and the statement that lets a shown run go run once per cycle, and
 * planning them cost more than running them: each must settle on its kept plan.
 */
describe('the click’s read and a run shown are planned once per connection, not on every call', needing('postgres'), () => {
  const schema = uniqueSchema('kept');
  let database: Database;

  beforeAll(async () => {
    // One connection, with PostgreSQL's own choice between kept and fresh plans (its default,
    // asked for so a server set otherwise does not decide the outcome).
    database = await openDatabase({ databaseUrl: urlWithSettings(process.env.DATABASE_URL!, { plan_cache_mode: 'auto' }), schema, poolSize: 1 });
    await migrate(database.db);
  });

  afterAll(async () => {
    await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(database.db);
    await database.close();
  });

  /** How often the prepared statement whose text has `marker` ran on its kept plan and on a fresh one. */
  async function plansOf(marker: string): Promise<{ generic: number; custom: number }> {
    const { rows } = await sql<{ generic_plans: string; custom_plans: string }>`
      SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%' || ${marker} || '%'
    `.execute(database.db);
    expect(rows).toHaveLength(1);
    return { generic: Number(rows[0]!.generic_plans), custom: Number(rows[0]!.custom_plans) };
  }

  it('reading one request and its card, twelve times: a fresh plan only for the first five', async () => {
    const ids = await waitingRuns(database.db, 'read', 12, 1);
    await cardsFor(database.db, ids);
    for (const id of ids) expect((await loadCardState(slackDb(database.db), id))?.card?.action_id).toBe(id);
    expect(await plansOf('AS blocked_reason')).toEqual({ generic: 7, custom: 5 });
  });

  it('letting twelve runs go one at a time, each with its card drawn: a fresh plan only for the first five', async () => {
    const ids = await waitingRuns(database.db, 'shown', 12, 1);
    await cardsFor(database.db, ids);
    for (const [i, id] of ids.entries()) await markRunShown(slackDb(database.db), `shown${i + 1}`, [{ actionId: id, key: 'approved:1' }]);
    expect(await plansOf('DELETE FROM slack_thread_locks')).toEqual({ generic: 7, custom: 5 });
    const { rows } = await sql<{ drawn: string }>`SELECT drawn FROM slack_cards WHERE action_id = ANY(${ids}::int[])`.execute(database.db);
    expect(rows.map((r) => r.drawn)).toEqual(ids.map(() => 'approved:1'));
  });
});
