import { sql, type RawBuilder } from 'kysely';

/** The Slack store's repair claims: which instance posts what a stopped process left unposted. */
type RepairTable = { table: 'slack_card_repairs'; key: 'action_id' } | { table: 'slack_result_repairs'; key: 'run_id' };

/**
 * One statement that claims, for this caller, up to `limit` of `candidates` (a query returning
 * `id` and `sort`) that nobody claimed in the last `graceMs`, oldest `sort` first. A claim older
 * than `graceMs` is taken over: the instance that held it stopped too. Returns the claimed keys
 * as `{ [key]: … }` rows (RETURNING), so it can stand alone or in a CTE.
 */
export function claimRepairs({ table, key }: RepairTable, candidates: RawBuilder<unknown>, graceMs: number, limit: number): RawBuilder<unknown> {
  const grace = sql`make_interval(secs => ${graceMs} / 1000.0)`;
  return sql`
    INSERT INTO ${sql.table(table)} (${sql.ref(key)})
    SELECT c.id FROM (${candidates}) c
    WHERE NOT EXISTS (SELECT 1 FROM ${sql.table(table)} x WHERE x.${sql.ref(key)} = c.id AND x.claimed_at >= now() - ${grace})
    ORDER BY c.sort
    LIMIT ${limit}
    ON CONFLICT (${sql.ref(key)}) DO UPDATE SET claimed_at = now()
      WHERE ${sql.ref(`${table}.claimed_at`)} < now() - ${grace}
    RETURNING ${sql.ref(key)}
  `;
}
