import { sql } from 'kysely';
import type { AgentInternals } from '../agent/agent-internals.js';
import type { AgentStream } from '../agent/agent-stream.js';
import { startContinuation } from '../agent/decide.js';
import type { RuntimeDeps } from '../agent/run-state.js';
import type { PendingAction } from '../db/pending-action.js';
import { pendingActionColumnList } from './pending-actions.js';

export interface ExpiredRequest {
  action: PendingAction;
  /** The run's continuation, when this expiry was the last thing it waited on. */
  stream?: AgentStream;
}

/**
 * Marks approval requests past their time as `expired` (never as declined) and
 * lets their runs continue with a denied result that says so. SKIP LOCKED lets
 * every instance sweep at once without two of them taking the same row.
 */
export async function sweepExpired(root: AgentInternals, deps: RuntimeDeps, limit = 100): Promise<ExpiredRequest[]> {
  const result = await sql<PendingAction>`
    WITH due AS (
      SELECT id FROM pending_actions
      WHERE status = 'pending' AND kind = 'approval' AND expires_at <= now() AND path->>0 = ${root.id}
      ORDER BY expires_at
      LIMIT ${limit}
      FOR NO KEY UPDATE SKIP LOCKED
    ), upd AS (
      UPDATE pending_actions p SET status = 'expired', decided_at = now()
      FROM due WHERE p.id = due.id
      RETURNING ${sql.raw(pendingActionColumnList.map((c) => `p.${c}`).join(', '))}
    ), audit AS (
      INSERT INTO audit_events (event, run_id, tool_call_id, tool_name, fingerprint, policy_version, detail)
      SELECT 'expired', run_id, tool_call_id, tool_name, fingerprint, policy_version,
             jsonb_build_object('expiresAt', expires_at)
      FROM upd
    )
    SELECT * FROM upd ORDER BY id
  `.execute(deps.db);
  const continued = new Set<string>();
  return result.rows.map((action) => {
    if (continued.has(action.run_id)) return { action };
    continued.add(action.run_id);
    return { action, stream: startContinuation(root, deps, action.run_id, action.root_run_id) };
  });
}

/** Runs the sweep every `intervalMs` until stopped; errors are logged, never fatal. */
export function startExpirySweeper(
  agents: Array<{ sweepExpired(limit?: number): Promise<ExpiredRequest[]> }>,
  options: { intervalMs: number; onExpired?: (expired: ExpiredRequest) => void; onError?: (error: unknown) => void },
): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    for (const agent of agents) {
      try {
        for (const expired of await agent.sweepExpired()) options.onExpired?.(expired);
      } catch (error) {
        options.onError?.(error);
      }
    }
    if (!stopped) timer = setTimeout(tick, options.intervalMs);
  };
  timer = setTimeout(tick, options.intervalMs);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
