import { sql } from 'kysely';
import type { Db } from './database.js';

/** One counter a call adds to: see src/approvals/limit-checks.ts. */
export interface UsageCount {
  toolKey: string;
  measure: string;
  subject: string;
  windowMs: number;
  amount: number;
}

export interface UsageTotal {
  toolKey: string;
  measure: string;
  subject: string;
  /** The window's total with this call included. */
  total: number;
}

/**
 * Most elements a counter keeps. Beyond it the oldest are merged into one element carrying their
 * summed amount and the newest of their times: it stays in the window until the last of them
 * would have left it, so merging can only over-count (fail closed), never let a call slip under.
 */
export const MAX_COUNTER_ENTRIES = 500;

/**
 * Counts one call (`callKey`: its run and tool call) in each counter and returns every counter's
 * window total, this call included, in ONE statement. The row lock ON CONFLICT takes makes
 * concurrent calls of a counter wait for each other, and the SET is computed from the latest
 * committed row, so of two calls that together go over a limit the second always sees the first.
 * Counters are written in key order so two calls of several counters cannot deadlock.
 */
export async function countLimitUsage(db: Db, callKey: string, counts: readonly UsageCount[]): Promise<UsageTotal[]> {
  if (counts.length === 0) return [];
  const rows = counts.map((c) => ({ tool_key: c.toolKey, measure: c.measure, subject: c.subject, window_ms: c.windowMs, amount: c.amount }));
  const result = await sql<{ tool_key: string; measure: string; subject: string; total: number | string }>`
    INSERT INTO limit_usage AS u (tool_key, measure, subject, window_ms, at, amounts, calls)
    SELECT c.tool_key, c.measure, c.subject, c.window_ms, ARRAY[now()], ARRAY[c.amount], ARRAY[hashtextextended(${callKey}, 0)]
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS c(tool_key text, measure text, subject text, window_ms bigint, amount double precision)
    ORDER BY c.tool_key, c.measure, c.subject
    ON CONFLICT (tool_key, measure, subject) DO UPDATE SET (window_ms, at, amounts, calls) = (
      SELECT EXCLUDED.window_ms,
             COALESCE(array_agg(k.at ORDER BY k.at), '{}') || EXCLUDED.at,
             COALESCE(array_agg(k.amount ORDER BY k.at), '{}') || EXCLUDED.amounts,
             COALESCE(array_agg(k.call ORDER BY k.at), '{}') || EXCLUDED.calls
      FROM (
        SELECT r.at, r.amount, r.call FROM (
          SELECT e.at, e.amount, e.call, row_number() OVER (ORDER BY e.at DESC) AS rn
          FROM unnest(u.at, u.amounts, u.calls) AS e(at, amount, call)
          WHERE e.at > now() - make_interval(secs => EXCLUDED.window_ms / 1000.0) AND e.call <> EXCLUDED.calls[1]
        ) r WHERE r.rn < ${MAX_COUNTER_ENTRIES}
        UNION ALL
        SELECT max(r.at), sum(r.amount), 0 FROM (
          SELECT e.at, e.amount, row_number() OVER (ORDER BY e.at DESC) AS rn
          FROM unnest(u.at, u.amounts, u.calls) AS e(at, amount, call)
          WHERE e.at > now() - make_interval(secs => EXCLUDED.window_ms / 1000.0) AND e.call <> EXCLUDED.calls[1]
        ) r WHERE r.rn >= ${MAX_COUNTER_ENTRIES}
        HAVING count(*) > 0
      ) k
    )
    RETURNING u.tool_key, u.measure, u.subject, (SELECT COALESCE(sum(a), 0) FROM unnest(u.amounts) AS a) AS total
  `.execute(db);
  return result.rows.map((r) => ({ toolKey: r.tool_key, measure: r.measure, subject: r.subject, total: Number(r.total) }));
}
