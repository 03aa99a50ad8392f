import { sql } from 'kysely';
import type { SlackDb } from '../tables.js';

/** Viewers kept current for a request anyone may decide: the most recent this many. */
const EVERYONE_MAX = 1000;

/** `user` opened their Home tab (on this instance or any other): it shows the oldest waiting requests first again. */
export async function recordHomeViewer(db: SlackDb, user: string): Promise<void> {
  await sql`
    INSERT INTO slack_home_viewers (user_id) VALUES (${user})
    ON CONFLICT (user_id) DO UPDATE SET opened_at = now(), waiting_after = NULL
  `.execute(db);
}

/** The page of waiting requests `user`'s Home shows from now on: those after request `after` (undefined: the oldest). */
export async function setHomePage(db: SlackDb, user: string, after: number | undefined): Promise<void> {
  await sql`
    INSERT INTO slack_home_viewers (user_id, waiting_after) VALUES (${user}, ${after ?? null})
    ON CONFLICT (user_id) DO UPDATE SET waiting_after = EXCLUDED.waiting_after
  `.execute(db);
}

/** Where `user`'s Home page of waiting requests starts (undefined: the oldest). */
export async function homePageOf(db: SlackDb, user: string): Promise<number | undefined> {
  const row = await db.selectFrom('slack_home_viewers').select('waiting_after').where('user_id', '=', user).executeTakeFirst();
  return row?.waiting_after ?? undefined;
}

/** Of `users`, those who have opened their Home; 'everyone': the most recent viewers. */
export async function homeViewersAmong(db: SlackDb, users: readonly string[] | 'everyone'): Promise<string[]> {
  if (users !== 'everyone' && users.length === 0) return [];
  const rows =
    users === 'everyone'
      ? await db.selectFrom('slack_home_viewers').select('user_id').orderBy('opened_at', 'desc').limit(EVERYONE_MAX).execute()
      : await db.selectFrom('slack_home_viewers').select('user_id').where('user_id', 'in', [...new Set(users)]).execute();
  return rows.map((r) => r.user_id);
}
