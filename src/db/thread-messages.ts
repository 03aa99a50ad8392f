import { sql } from 'kysely';
import type { LanguageModelV3Message } from '@ai-sdk/provider';
import type { Db } from './database.js';

interface LoadedHistory {
  messages: LanguageModelV3Message[];
  /** Highest message id read, so a resumed run sees the same history without storing it twice. */
  upTo: string | null;
}

export async function loadThreadHistory(
  db: Db,
  threadId: string,
  resourceId: string,
  lastMessages: number,
  upTo?: string | null,
): Promise<LoadedHistory> {
  if (lastMessages <= 0) return { messages: [], upTo: null };
  const result = await sql<{ id: string; message: LanguageModelV3Message }>`
    SELECT id::text AS id, message FROM thread_messages
    WHERE thread_id = ${threadId} AND resource_id = ${resourceId}
      AND (${upTo ?? null}::bigint IS NULL OR id <= ${upTo ?? null}::bigint)
    ORDER BY id DESC LIMIT ${lastMessages}
  `.execute(db);
  const newest = result.rows[0]?.id ?? upTo ?? null;
  const rows = [...result.rows].reverse();
  // A window must not open on tool results whose calls it cut off: providers reject that.
  while (rows.length && rows[0]!.message.role === 'tool') rows.shift();
  return { messages: rows.map((r) => r.message), upTo: newest };
}
