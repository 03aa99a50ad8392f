import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface SuspendedToolCall {
  toolCallId: string;
  toolName: string;
  args: unknown;
  requiresApproval: boolean;
  suspendPayload: unknown;
  /** Agent ids down to the agent that owns the call. */
  path: string[];
  /** The (sub-agent) run that owns the call. */
  runId: string;
  actionId: number;
  fingerprint: string | null;
  expiresAt: Date | null;
  /** Who started the run the call belongs to, when a person did. */
  requester: string | null;
}

export interface SuspendedRun {
  runId: string;
  status: 'suspended' | 'running';
  threadId: string | null;
  resourceId: string | null;
  suspendedAt: Date;
  toolCalls: SuspendedToolCall[];
}

/**
 * Top-level runs of an agent that wait on people, each with the calls it
 * waits on (for a supervisor: the inner calls of its sub-agents). Read from
 * storage, so it works the same after a restart.
 */
export async function listSuspendedRuns(
  db: Db,
  agentId: string,
  filter: { threadId?: string; resourceId?: string },
): Promise<SuspendedRun[]> {
  const rows = await sql<{
    run_id: string;
    status: 'suspended' | 'running';
    thread_id: string | null;
    resource_id: string | null;
    suspended_at: Date;
    action_id: number | null;
    tool_call_id: string | null;
    tool_name: string | null;
    kind: string | null;
    args: unknown;
    suspend_payload: unknown;
    path: string[] | null;
    action_run_id: string | null;
    fingerprint: string | null;
    expires_at: Date | null;
    requester: string | null;
  }>`
    SELECT s.run_id, s.status, s.thread_id, s.resource_id, s.suspended_at,
           p.id AS action_id, p.tool_call_id, p.tool_name, p.kind, p.args, p.suspend_payload, p.path,
           p.run_id AS action_run_id, p.fingerprint, p.expires_at, p.requester
    FROM run_snapshots s
    LEFT JOIN pending_actions p
      ON p.root_run_id = s.run_id AND p.status = 'pending' AND p.kind <> 'delegation'
    WHERE s.parent_run_id IS NULL AND s.agent_id = ${agentId}
      AND (${filter.threadId ?? null}::text IS NULL OR s.thread_id = ${filter.threadId ?? null})
      AND (${filter.resourceId ?? null}::text IS NULL OR s.resource_id = ${filter.resourceId ?? null})
    ORDER BY s.suspended_at, s.run_id, p.id
  `.execute(db);
  const runs = new Map<string, SuspendedRun>();
  for (const r of rows.rows) {
    let run = runs.get(r.run_id);
    if (!run) {
      run = {
        runId: r.run_id,
        status: r.status,
        threadId: r.thread_id,
        resourceId: r.resource_id,
        suspendedAt: r.suspended_at,
        toolCalls: [],
      };
      runs.set(r.run_id, run);
    }
    if (r.action_id !== null) {
      run.toolCalls.push({
        toolCallId: r.tool_call_id!,
        toolName: r.tool_name!,
        args: r.args,
        requiresApproval: r.kind === 'approval',
        suspendPayload: r.suspend_payload ?? undefined,
        path: r.path ?? [],
        runId: r.action_run_id!,
        actionId: r.action_id,
        fingerprint: r.fingerprint,
        expiresAt: r.expires_at,
        requester: r.requester,
      });
    }
  }
  return [...runs.values()];
}
