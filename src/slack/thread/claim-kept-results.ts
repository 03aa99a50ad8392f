import { sql } from 'kysely';
import { claimRepairs } from '../card/claim-repairs.js';
import type { SlackDb } from '../tables.js';

/** A run's kept answer and where its thread is (absent when the run has no thread on record). */
export interface KeptResult {
  run_id: string;
  text: string;
  finished_at: Date;
  channel: string | null;
  thread_ts: string | null;
  message_ts: string | null;
}

/**
 * Answers of `agentId`'s runs (run_results) still not shown `graceMs` after
 * their run ended: the process that ended the run stopped before posting the
 * answer, or could not post it. Each is claimed for this caller in the same
 * statement (slack_result_repairs), so one instance posts it; a claim is
 * retried once it is `graceMs` old. `graceMs` is well past the Web API's
 * retries, so an answer still being posted is not posted twice.
 */
export async function claimKeptResults(db: SlackDb, agentId: string, graceMs: number, limit = 50): Promise<KeptResult[]> {
  const ended = sql`
    SELECT r.run_id AS id, r.finished_at AS sort FROM run_results r
    WHERE r.agent_id = ${agentId} AND r.finished_at < now() - make_interval(secs => ${graceMs} / 1000.0)
  `;
  const result = await sql<KeptResult>`
    WITH claimed AS (${claimRepairs({ table: 'slack_result_repairs', key: 'run_id' }, ended, graceMs, limit)})
    SELECT r.run_id, r.text, r.finished_at, t.channel, t.thread_ts, t.message_ts
    FROM claimed JOIN run_results r ON r.run_id = claimed.run_id
    LEFT JOIN slack_threads t ON t.run_id = r.run_id
    ORDER BY r.finished_at
  `.execute(db);
  return result.rows;
}
