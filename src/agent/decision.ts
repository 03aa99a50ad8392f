import type { PendingAction } from '../db/pending-action.js';
import type { AgentStream } from './agent-stream.js';

export interface Actor {
  userId: string;
  /** Group ids the actor is known to belong to; otherwise the resolver is asked. */
  groups?: string[];
}

/**
 * Every way a decision can end. Callers (the Slack listener, the code API)
 * must handle each: a refused click is an ordinary outcome, not an exception.
 * `stream` is present when the decision let the run continue.
 */
export type Decision =
  | { outcome: 'approved'; action: PendingAction; stream?: AgentStream }
  | { outcome: 'approval-recorded'; action: PendingAction; approvals: string[]; quorum: number; alreadyCounted: boolean }
  | { outcome: 'declined'; action: PendingAction; stream?: AgentStream }
  | { outcome: 'not-allowed'; action: PendingAction; why: string; message: string }
  | { outcome: 'already-decided'; action: PendingAction }
  | { outcome: 'expired'; action: PendingAction; stream?: AgentStream }
  | { outcome: 'policy-changed'; action: PendingAction; stream?: AgentStream }
  | { outcome: 'fingerprint-mismatch'; action: PendingAction }
  | { outcome: 'not-found'; runId: string; toolCallId?: string; runExists: boolean };

export interface DecisionRequest {
  runId: string;
  toolCallId?: string;
  /** Acting user; code that omits it acts as `api` and is held to the same policy. */
  actor?: Actor;
  reason?: string;
  /** When given (a Slack button carries one), the pending call must still have this fingerprint (prefix). */
  fingerprint?: string;
  /** Or address the pending action by its id (Slack buttons do). */
  actionId?: number;
}
