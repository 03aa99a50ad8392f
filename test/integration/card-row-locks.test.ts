/**
 * The statements that lock several cards at once: marking the cards a run drew (markRunShown,
 * markCardsDrawn) or a batch card's members (markBatchDrawn), and the sweep's claim of cards to
 * redraw (claimStaleCards); and the sweep's claims of repairs (claimRepairs: answers a stopped
 * process did not post, cards it did not post). Two instances can touch the same rows at the same
 * moment (one drew a card on a click, the other on its sweep; two sweeps); a statement that locked
 * them in whatever order its plan read them could wait on the other while holding what the other
 * waits for, until PostgreSQL ends one of them as a deadlock.
 */
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.js';
import { slackDb } from '../../src/slack/context.js';
import { markCardsDrawn } from '../../src/slack/card/show-card-update.js';
import { claimStaleCards } from '../../src/slack/card/card-repairs.js';
import { markBatchDrawn } from '../../src/slack/batch/post-batch.js';
import { claimKeptResults } from '../../src/slack/thread/kept-results.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { needing } from '../helpers/needs.js';
import { underAHolder } from '../helpers/row-locks.js';

/** Requests of agent `ops`, decided an hour ago with `status`; their ids in the order made. */
async function decidedRequests(db: Kysely<DB>, count: number, status: 'declined' | 'pending'): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, status, policy_version, path, created_at, decided_at)
    SELECT 'run' || g, 'run' || g, 'call', 'delete_record', 'approval', '{}', repeat('a', 64), ${status}, 'v1', '["ops"]'::jsonb,
      now() - interval '2 hours', CASE WHEN ${status} = 'pending' THEN NULL ELSE now() - interval '1 hour' END
    FROM generate_series(1, ${count}::int) g ORDER BY g
    RETURNING id
  `.execute(db);
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/** A card for each request, stored in the order given (a scan of the table meets them in that order). */
async function cards(db: Kysely<DB>, actionIds: number[], drawn: string): Promise<void> {
  for (const id of actionIds) {
    await sql`INSERT INTO slack_cards (action_id, channel, ts, kind, drawn) VALUES (${id}, 'C0CARDS', ${`1700000000.${String(id).padStart(6, '0')}`}, 'approval', ${drawn})`.execute(db);
  }
}

/** What `work` gives, or 'waited' when it is still waiting for the holder seconds later (the holder lets go only after). */
const unlessItWaits = <T>(work: Promise<T>) => Promise.race([work, new Promise<'waited'>((r) => setTimeout(() => r('waited'), 5_000).unref())]);

describe('statements that lock several rows at once', needing('postgres'), () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase('postgres');
  });

  afterEach(async () => {
    await database.close();
  });

  /**
   * Another instance holds the first card (say, its sweep redrawing it) in a transaction of its
   * own while `mark` marks both cards, naming the second first; then it goes on to the second card.
   * Had the marking locked the second before waiting for the first, the holder would wait for it,
   * and PostgreSQL would end one of the two as a deadlock.
   */
  async function markUnderAHolder(mark: (first: number, second: number) => Promise<unknown>) {
    const [first, second] = await decidedRequests(database.db, 2, 'pending');
    // Stored second first, so a plan that read the table in its order would lock the second first.
    await cards(database.db, [second!, first!], 'pending:0');
    const outcome = await underAHolder(
      database.db,
      {
        takeFirst: sql`UPDATE slack_cards SET drawn = 'held' WHERE action_id = ${first!}`,
        takeSecond: sql`UPDATE slack_cards SET drawn = 'held' WHERE action_id = ${second!}`,
      },
      () => mark(first!, second!).then(() => 'marked'),
    );
    const { rows } = await sql<{ action_id: number; drawn: string }>`SELECT action_id, drawn FROM slack_cards ORDER BY action_id`.execute(database.db);
    return { outcome, cards: rows, first, second };
  }

  type Mark = (marks: Array<{ actionId: number; key: string }>) => Promise<unknown>;
  it.each<[string, Mark]>([
    ['marking two cards a run drew', (marks) => markCardsDrawn(slackDb(database.db), marks)],
    ['marking a batch card’s two members drawn', (marks) => markBatchDrawn(slackDb(database.db), marks)],
  ])('%s takes them in the order of their ids: someone holding the first never waits on the second', async (_, mark) => {
    const { outcome, cards: after, first, second } = await markUnderAHolder((first, second) =>
      mark([
        { actionId: second, key: 'approved:1' },
        { actionId: first, key: 'approved:1' },
      ]),
    );
    expect(outcome).toEqual({ took: 'took it', work: 'marked' });
    // The marking ran once the holder was done, and its marks stand.
    expect(after).toEqual([
      { action_id: first, drawn: 'approved:1' },
      { action_id: second, drawn: 'approved:1' },
    ]);
  });

  it('the sweep passes over a card someone holds, claims the others at once, and claims that one once it is free', async () => {
    const ids = await decidedRequests(database.db, 3, 'declined');
    // Each card still shows its request waiting: every one needs a redraw.
    await cards(database.db, ids, 'pending:0');
    const [held, ...others] = ids;
    const db = slackDb(database.db);

    const claimedWhileHeld = await database.db.connection().execute(async (conn) => {
      await sql`BEGIN`.execute(conn);
      try {
        await sql`SELECT 1 FROM slack_cards WHERE action_id = ${held!} FOR UPDATE`.execute(conn);
        return await unlessItWaits(claimStaleCards(db, 'ops', 60_000));
      } finally {
        await sql`COMMIT`.execute(conn);
      }
    });
    expect(claimedWhileHeld).toEqual(others);
    // Claimed ones are not claimed again within the grace; the one passed over is claimed now.
    expect(await claimStaleCards(db, 'ops', 60_000)).toEqual([held]);
    expect(await claimStaleCards(db, 'ops', 60_000)).toEqual([]);
  });

  it('the sweep settles a card that shows its final state, and leaves one someone holds for a later sweep', async () => {
    const [settles, held] = await decidedRequests(database.db, 2, 'declined');
    await cards(database.db, [settles!, held!], 'declined:0');
    const db = slackDb(database.db);
    await database.db.connection().execute(async (conn) => {
      await sql`BEGIN`.execute(conn);
      try {
        await sql`SELECT 1 FROM slack_cards WHERE action_id = ${held!} FOR UPDATE`.execute(conn);
        expect(await unlessItWaits(claimStaleCards(db, 'ops', 60_000))).toEqual([]);
      } finally {
        await sql`COMMIT`.execute(conn);
      }
    });
    const settled = async () => (await sql<{ action_id: number; settled: boolean }>`SELECT action_id, settled FROM slack_cards ORDER BY action_id`.execute(database.db)).rows;
    expect(await settled()).toEqual([
      { action_id: settles, settled: true },
      { action_id: held, settled: false },
    ]);
    await claimStaleCards(db, 'ops', 60_000);
    expect(await settled()).toEqual([
      { action_id: settles, settled: true },
      { action_id: held, settled: true },
    ]);
  });

  it('the sweep claims answers that ended at the same moment in the order of their runs: another sweep holding the first never waits on the second', async () => {
    // Two answers no process posted, ended in the same microsecond, stored second first.
    await sql`
      INSERT INTO run_results (run_id, agent_id, text, finish_reason, finished_at)
      VALUES ('run-b', 'ops', 'b', 'stop', now() - interval '1 hour'), ('run-a', 'ops', 'a', 'stop', now() - interval '1 hour')
    `.execute(database.db);
    const db = slackDb(database.db);
    // Another instance's sweep has claimed the first and is about to claim the second.
    const outcome = await underAHolder(
      database.db,
      {
        takeFirst: sql`INSERT INTO slack_result_repairs (run_id) VALUES ('run-a')`,
        takeSecond: sql`INSERT INTO slack_result_repairs (run_id) VALUES ('run-b')`,
      },
      async () => (await claimKeptResults(db, 'ops', 60_000)).map((k) => k.run_id),
    );
    // The other sweep has both; this one, once it was done, found them claimed.
    expect(outcome).toEqual({ took: 'took it', work: [] });
    // Both unclaimed: claimed oldest first and, at the same moment, by run.
    await sql`DELETE FROM slack_result_repairs`.execute(database.db);
    expect((await claimKeptResults(db, 'ops', 60_000)).map((k) => k.run_id)).toEqual(['run-a', 'run-b']);
  });
});
