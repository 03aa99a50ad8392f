import { sql, type RawBuilder } from 'kysely';
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
  const result = await sql<{ tool_key: string; measure: string; subject: string; total: number | string }>`${addToCounters(callKey, counts)}`.execute(db);
  return result.rows.map((r) => ({ toolKey: r.tool_key, measure: r.measure, subject: r.subject, total: Number(r.total) }));
}

/**
 * The upsert that counts one call: the window pruned, the call's earlier element (same call
 * hash) dropped, so counting a call again REPLACES its contribution, and the call appended;
 * returns each counter's total. `onlyIf` makes it count nothing unless the condition holds.
 */
function addToCounters(callKey: string, counts: readonly UsageCount[], onlyIf?: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    INSERT INTO limit_usage AS u (tool_key, measure, subject, window_ms, at, amounts, calls)
    SELECT c.tool_key, c.measure, c.subject, c.window_ms, ARRAY[now()], ARRAY[c.amount], ARRAY[hashtextextended(${callKey}, 0)]
    FROM ${countRows(counts)}
    ${onlyIf ? sql`WHERE ${onlyIf}` : sql``}
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
  `;
}

function countRows(counts: readonly UsageCount[]): RawBuilder<unknown> {
  const rows = counts.map((c) => ({ tool_key: c.toolKey, measure: c.measure, subject: c.subject, window_ms: c.windowMs, amount: c.amount }));
  return sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS c(tool_key text, measure text, subject text, window_ms bigint, amount double precision)`;
}

/** What the window of `c` (a counts row) holds for calls other than `callKey`, read from counter row `u`. */
function othersInWindow(u: string, callKey: string): RawBuilder<unknown> {
  return sql`COALESCE((SELECT sum(e.amount) FROM unnest(${sql.ref(`${u}.at`)}, ${sql.ref(`${u}.amounts`)}, ${sql.ref(`${u}.calls`)}) AS e(at, amount, call)
                       WHERE e.at > now() - make_interval(secs => c.window_ms / 1000.0) AND e.call <> hashtextextended(${callKey}, 0)), 0)`;
}

/**
 * Each counter's window total if this call (`callKey`, already counted once) were counted again
 * with `counts`' amounts: its own earlier element replaced, not added to. A read of committed
 * rows, no lock: what an edit's requirement is worked out from before the statement that records
 * it re-counts under the counters' locks (see recountCtes). Counters the call has no row in yet
 * (a limit added since it was counted) are created empty, so that statement finds a row to lock.
 */
export async function previewRecount(db: Db, callKey: string, counts: readonly UsageCount[]): Promise<UsageTotal[]> {
  if (counts.length === 0) return [];
  const result = await sql<{ tool_key: string; measure: string; subject: string; total: number | string }>`
    WITH created AS (
      INSERT INTO limit_usage (tool_key, measure, subject, window_ms, at, amounts, calls)
      SELECT c.tool_key, c.measure, c.subject, c.window_ms, '{}', '{}', '{}' FROM ${countRows(counts)}
      WHERE NOT EXISTS (SELECT 1 FROM limit_usage x WHERE x.tool_key = c.tool_key AND x.measure = c.measure AND x.subject = c.subject)
      ORDER BY c.tool_key, c.measure, c.subject
      ON CONFLICT DO NOTHING
    )
    SELECT c.tool_key, c.measure, c.subject, c.amount + ${othersInWindow('u', callKey)} AS total
    FROM ${countRows(counts)} LEFT JOIN limit_usage u ON u.tool_key = c.tool_key AND u.measure = c.measure AND u.subject = c.subject
  `.execute(db);
  return result.rows.map((r) => ({ toolKey: r.tool_key, measure: r.measure, subject: r.subject, total: Number(r.total) }));
}

/** A counter, by its key. */
export type CounterKey = Pick<UsageCount, 'toolKey' | 'measure' | 'subject'>;

/**
 * An edited call counted again inside the statement that records the edit (edit-action.ts):
 * which counters, what the requirement was worked out from (every limit, and whether the
 * preview went over it), and the hits to store, each with the counter whose total it shows.
 */
export interface Recount {
  callKey: string;
  counts: readonly UsageCount[];
  expected: ReadonlyArray<CounterKey & { above: number; over: boolean }>;
  hits: ReadonlyArray<{ counter: CounterKey; hit: Record<string, unknown> }>;
}

/**
 * CTEs (before the statement's own) that lock the counters of a re-count in key order (FOR
 * UPDATE waits for a call being counted and reads its committed row), total them with this
 * call's element replaced by its new amount, and say (`held`) whether every limit is over or
 * under exactly as the preview the requirement came from said. A statement that acts only when
 * `recountHeld` is true therefore never records an edit under a requirement its limits no longer
 * give: concurrent calls and edits of a counter stay one after the other, as counting is.
 */
export function recountCtes(r: Recount): RawBuilder<unknown> {
  const expected = JSON.stringify(r.expected.map((e) => ({ tool_key: e.toolKey, measure: e.measure, subject: e.subject, above: e.above, over: e.over })));
  return sql`
    locked AS (
      SELECT u.tool_key, u.measure, u.subject, u.at, u.amounts, u.calls FROM limit_usage u
      WHERE (u.tool_key, u.measure, u.subject) IN (SELECT c.tool_key, c.measure, c.subject FROM ${countRows(r.counts)})
      ORDER BY u.tool_key, u.measure, u.subject
      FOR UPDATE
    ), recount AS (
      SELECT c.tool_key, c.measure, c.subject, l.tool_key IS NOT NULL AS found, c.amount + ${othersInWindow('l', r.callKey)} AS total
      FROM ${countRows(r.counts)} LEFT JOIN locked l ON l.tool_key = c.tool_key AND l.measure = c.measure AND l.subject = c.subject
    ), held AS (
      SELECT COALESCE(bool_and(rc.found AND (rc.total > x.above) = x.over), false) AS ok
      FROM jsonb_to_recordset(${expected}::jsonb) AS x(tool_key text, measure text, subject text, above double precision, over boolean)
      LEFT JOIN recount rc ON rc.tool_key = x.tool_key AND rc.measure = x.measure AND rc.subject = x.subject
    )`;
}

/** True when the re-count of recountCtes agrees with the preview. */
export const recountHeld = sql`COALESCE((SELECT ok FROM held), false)`;

/** The hits to store, with their re-counted totals (NULL when the call goes over no limit). */
export function recountedHits(r: Recount): RawBuilder<unknown> {
  const hits = JSON.stringify(r.hits.map((h, n) => ({ n, hit: h.hit, tool_key: h.counter.toolKey, measure: h.counter.measure, subject: h.counter.subject })));
  return sql`(SELECT jsonb_agg(h.hit || jsonb_build_object('total', rc.total) ORDER BY h.n)
              FROM jsonb_to_recordset(${hits}::jsonb) AS h(n integer, hit jsonb, tool_key text, measure text, subject text)
              JOIN recount rc ON rc.tool_key = h.tool_key AND rc.measure = h.measure AND rc.subject = h.subject)`;
}

/** The data-modifying CTE body that counts the edited call, only once `closedCte` closed the request. */
export function recountWrite(r: Recount, closedCte: string): RawBuilder<unknown> {
  return addToCounters(r.callKey, r.counts, sql`EXISTS (SELECT 1 FROM ${sql.table(closedCte)})`);
}
