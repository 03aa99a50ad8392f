import { sql, type RawBuilder } from 'kysely';
import { unreachable } from '../unreachable.js';

/** A test of the value at an argument path, as a policy rule states it (see RuleCondition). */
type ArgTest =
  | { op: 'gt' | 'gte' | 'lt' | 'lte'; value: number }
  | { op: 'eq' | 'ne'; value: unknown }
  | { op: 'in'; value: readonly unknown[] };

/**
 * A condition on a pending_actions row, as data: the runtime states who may decide a request in
 * these terms (agent/waiting-for.ts) and requestFilterSql renders them for PostgreSQL and PGlite.
 * Every leaf is true or false, never NULL, so `not` means what it says.
 */
export type RequestFilter =
  | { op: 'true' }
  | { op: 'false' }
  | { op: 'and' | 'or'; of: readonly RequestFilter[] }
  | { op: 'not'; of: RequestFilter }
  /** The call of this tool name at this agent path. */
  | { op: 'call'; toolName: string; path: readonly string[] | null }
  /** The argument at `path` (dot path split) is present and passes `test`, with the policy's matching rules. */
  | { op: 'arg'; path: readonly string[]; test: ArgTest }
  /** The request went over the limit at this position of its tool's entry (limit_hits, read as limitHitsFromRow reads it). */
  | { op: 'limit-hit'; limit: number }
  | { op: 'requested-by'; user: string }
  | { op: 'policy-version'; version: string }
  /** The last of `whens` that holds is at one of the positions `among` (false when none holds). */
  | { op: 'last-of'; whens: readonly RequestFilter[]; among: readonly number[] }
  /** Made at or before `at[i]` (to the millisecond, as a Date reads it), i the last of `whens` that holds; a null `at` never. */
  | { op: 'made-by-last-of'; whens: readonly RequestFilter[]; at: readonly (Date | null)[] };

const TRUE: RequestFilter = { op: 'true' };
const FALSE: RequestFilter = { op: 'false' };

/** `and`, folding constants so that a policy without rules stays a short statement. */
export function allOf(...of: RequestFilter[]): RequestFilter {
  const kept = of.filter((f) => f.op !== 'true');
  if (kept.some((f) => f.op === 'false')) return FALSE;
  return kept.length === 0 ? TRUE : kept.length === 1 ? kept[0]! : { op: 'and', of: kept };
}

/** `or`, folding constants. */
export function anyOf(...of: RequestFilter[]): RequestFilter {
  const kept = of.filter((f) => f.op !== 'false');
  if (kept.some((f) => f.op === 'true')) return TRUE;
  return kept.length === 0 ? FALSE : kept.length === 1 ? kept[0]! : { op: 'or', of: kept };
}

export function not(of: RequestFilter): RequestFilter {
  return of.op === 'true' ? FALSE : of.op === 'false' ? TRUE : of.op === 'not' ? of.of : { op: 'not', of };
}

export const always = TRUE;

/** `last-of`, folded: none of the positions is FALSE; every one, with the first always holding, is TRUE. */
export function lastOf(whens: readonly RequestFilter[], among: readonly number[]): RequestFilter {
  if (among.length === 0 || whens.length === 0) return FALSE;
  if (whens[0]!.op === 'true' && whens.every((_, i) => among.includes(i))) return TRUE;
  return { op: 'last-of', whens, among };
}

/** `made-by-last-of`, folded: no time at all is FALSE. */
export function madeByLastOf(whens: readonly RequestFilter[], at: readonly (Date | null)[]): RequestFilter {
  if (whens.length === 0 || at.every((t) => t === null)) return FALSE;
  return { op: 'made-by-last-of', whens, at };
}

// An array index in a path is only ever a canonical non-negative integer (see lookup in requirement-for.ts).
const INDEX = /^(0|[1-9]\d*)$/;
const MAX_INDEX = 2_147_483_647;

/** The condition as SQL over a row of pending_actions (unqualified columns). */
export function requestFilterSql(filter: RequestFilter): RawBuilder<boolean> {
  switch (filter.op) {
    case 'true':
      return sql<boolean>`TRUE`;
    case 'false':
      return sql<boolean>`FALSE`;
    case 'and':
    case 'or': {
      if (filter.of.length === 0) return sql<boolean>`${sql.raw(filter.op === 'and' ? 'TRUE' : 'FALSE')}`;
      return sql<boolean>`(${sql.join(filter.of.map(requestFilterSql), sql.raw(filter.op === 'and' ? ' AND ' : ' OR '))})`;
    }
    case 'not':
      return sql<boolean>`(NOT ${requestFilterSql(filter.of)})`;
    case 'call':
      return filter.path === null
        ? sql<boolean>`(tool_name = ${filter.toolName} AND path IS NULL)`
        : sql<boolean>`(tool_name = ${filter.toolName} AND path = ${JSON.stringify(filter.path)}::jsonb)`;
    case 'arg':
      return argSql(filter.path, filter.test);
    case 'limit-hit':
      // As limitHitsFromRow: only elements shaped like a hit count; anything else in the column is ignored.
      return sql<boolean>`EXISTS (
        SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(limit_hits) = 'array' THEN limit_hits ELSE '[]'::jsonb END) AS hit
        WHERE jsonb_typeof(hit) = 'object' AND hit -> 'limit' = ${JSON.stringify(filter.limit)}::jsonb
          AND jsonb_typeof(hit -> 'total') = 'number' AND jsonb_typeof(hit -> 'above') = 'number' AND jsonb_typeof(hit -> 'overMs') = 'number')`;
    case 'requested-by':
      return sql<boolean>`COALESCE(requester = ${filter.user}, FALSE)`;
    case 'policy-version':
      return sql<boolean>`COALESCE(policy_version = ${filter.version}, FALSE)`;
    case 'last-of': {
      if (filter.among.length === 0 || filter.whens.length === 0) return sql<boolean>`FALSE`;
      return sql<boolean>`COALESCE(${positionOfLast(filter.whens)} IN (${sql.join(filter.among.map((i) => sql`${i}::int`))}), FALSE)`;
    }
    case 'made-by-last-of': {
      if (filter.whens.length === 0) return sql<boolean>`FALSE`;
      const cases = filter.whens.map((when, i) => ({ when, at: filter.at[i] ?? null })).reverse();
      const at = sql`CASE ${sql.join(
        cases.map((c) => sql`WHEN ${requestFilterSql(c.when)} THEN ${c.at === null ? sql`NULL::timestamptz` : sql`${c.at.toISOString()}::timestamptz`}`),
        sql` `,
      )} END`;
      return sql<boolean>`COALESCE(date_trunc('milliseconds', created_at) <= ${at}, FALSE)`;
    }
    default:
      return unreachable(filter, 'request filter');
  }
}

/** The position of the last of `whens` that holds, or NULL. */
function positionOfLast(whens: readonly RequestFilter[]): RawBuilder<number> {
  const cases = whens.map((when, i) => sql`WHEN ${requestFilterSql(when)} THEN ${i}::int`).reverse();
  return sql<number>`(CASE ${sql.join(cases, sql` `)} END)`;
}

/**
 * The value at a dot path of `args`, as lookup (requirement-for.ts) finds it: `#>` reads objects
 * by key and arrays by index, and a segment that is not a canonical index must meet an object.
 * A JSON null found there is present (`'null'::jsonb` is not SQL NULL); a missing one is SQL NULL.
 */
function argValue(path: readonly string[]): { value: RawBuilder<unknown>; reachable: RawBuilder<boolean> } {
  const asArray = (parts: readonly string[]) => (parts.length === 0 ? sql`'{}'::text[]` : sql`ARRAY[${sql.join(parts.map((p) => sql`${p}::text`))}]`);
  const objectsOnly = path
    .map((segment, i) => ({ segment, i }))
    .filter(({ segment }) => !INDEX.test(segment) || Number(segment) > MAX_INDEX)
    .map(({ i }) => sql<boolean>`jsonb_typeof(args #> ${asArray(path.slice(0, i))}) = 'object'`);
  return {
    value: sql`(args #> ${asArray(path)})`,
    reachable: objectsOnly.length === 0 ? sql<boolean>`TRUE` : sql<boolean>`(${sql.join(objectsOnly, sql` AND `)})`,
  };
}

function argSql(path: readonly string[], test: ArgTest): RawBuilder<boolean> {
  const { value: v, reachable } = argValue(path);
  // CASE, not AND: PostgreSQL may evaluate AND's operands in any order, and a cast of a string to numeric throws.
  const present = (then: RawBuilder<boolean>) => sql<boolean>`COALESCE(CASE WHEN ${reachable} AND ${v} IS NOT NULL THEN ${then} ELSE FALSE END, FALSE)`;
  const equals = (value: unknown) => sql<boolean>`${v} = ${JSON.stringify(value)}::jsonb`;
  switch (test.op) {
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const operator = sql.raw({ gt: '>', gte: '>=', lt: '<', lte: '<=' }[test.op]);
      // A number's shortest decimal form orders as the double does, so numeric compares as the JavaScript rule does.
      return present(sql<boolean>`CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric ${operator} ${String(test.value)}::numeric ELSE FALSE END`);
    }
    case 'eq':
      return present(equals(test.value));
    case 'ne':
      return present(sql<boolean>`NOT (${equals(test.value)})`);
    case 'in':
      return test.value.length === 0 ? sql<boolean>`FALSE` : present(sql<boolean>`(${sql.join(test.value.map(equals), sql` OR `)})`);
    default:
      return unreachable(test, 'argument test');
  }
}
