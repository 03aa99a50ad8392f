import type { CardKind } from '../blocks/action-ids.js';
import type { SlackDb } from '../slack-tables.js';

export interface CardRow {
  action_id: number;
  channel: string;
  ts: string;
  thread_ts: string | null;
  kind: CardKind;
}

export async function saveCard(db: SlackDb, card: CardRow): Promise<void> {
  await db
    .insertInto('slack_cards')
    .values(card)
    .onConflict((oc) => oc.column('action_id').doUpdateSet({ channel: card.channel, ts: card.ts, thread_ts: card.thread_ts, kind: card.kind }))
    .execute();
}

export async function findCard(db: SlackDb, actionId: number): Promise<CardRow | undefined> {
  return db
    .selectFrom('slack_cards')
    .select(['action_id', 'channel', 'ts', 'thread_ts', 'kind'])
    .where('action_id', '=', actionId)
    .executeTakeFirst();
}
