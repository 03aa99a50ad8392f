import type { Generated, Kysely } from 'kysely';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { CardKind } from './kit/action-ids.js';

/**
 * Kysely's view of the Slack tables (migrations 003, 007, 009, 011, 012, 013 and 018), kept beside the code that uses it.
 * A type alias, not an interface: withTables() wants a string index, which interfaces lack.
 */
export type SlackTables = {
  slack_events: { event_id: string; received_at: Generated<Date> };
  slack_cards: {
    action_id: number;
    channel: string;
    ts: string;
    thread_ts: string | null;
    kind: CardKind;
    created_at: Generated<Date>;
    /** The state key (cardStateKey) the card was last seen to show. */
    drawn: string | null;
    drawn_at: Generated<Date>;
    settled: Generated<boolean>;
    repair_claimed_at: Date | null;
    copies: Generated<{ channel: string; ts: string; user?: string }[]>;
    /** Every member of the batch card this request is on, in order (migration 018); null for a card of its own. */
    batch: number[] | null;
  };
  slack_threads: {
    run_id: string;
    channel: string;
    thread_ts: string | null;
    team_id: string | null;
    requester: string | null;
    message_ts: string | null;
    created_at: Generated<Date>;
  };
  slack_card_repairs: { action_id: number; claimed_at: Generated<Date> };
  slack_thread_locks: { agent_id: string; thread_id: string; resource_id: string; run_id: string; locked_at: Generated<Date> };
  slack_result_repairs: { run_id: string; claimed_at: Generated<Date> };
  slack_notices: { action_id: number; notice: string; claimed_at: Generated<Date>; sent_at: Date | null };
  slack_home_viewers: { user_id: string; opened_at: Generated<Date>; waiting_after: number | null };
};

export type SlackDb = Kysely<DB & SlackTables>;

export function slackDb(db: Db): SlackDb {
  return db.withTables<SlackTables>() as unknown as SlackDb;
}
