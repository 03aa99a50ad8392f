import { sql } from 'kysely';
import type { SlackDb } from './slack-tables.js';

/** Viewers kept current for a request anyone may decide: the most recent this many. */
const EVERYONE_MAX = 1000;

/** `user` opened their Home tab (on this instance or any other). */
export async function recordHomeViewer(db: SlackDb, user: string): Promise<void> {
  await sql`
    INSERT INTO slack_home_viewers (user_id) VALUES (${user})
    ON CONFLICT (user_id) DO UPDATE SET opened_at = now()
  `.execute(db);
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
