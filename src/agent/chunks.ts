/** The chunk vocabulary of `agent.stream()`; every chunk names its run. */

export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  args: unknown;
  /** Agent ids from the top-level agent down to the one that owns the tool. */
  path: string[];
  /** The run that owns the tool call (differs from the stream's run for sub-agents). */
  runId: string;
  actionId: number;
  fingerprint: string;
  policyVersion: string;
  requester?: string;
  approvers: string[];
  quorum: number;
  expiresAt: string;
}

export interface SuspensionRequest {
  toolCallId: string;
  toolName: string;
  args: unknown;
  suspendPayload: unknown;
  path: string[];
  runId: string;
  actionId: number;
}

/** An approved call that did not run: what was about to run did not match the approval's grant. */
export interface BlockedCall {
  toolCallId: string;
  toolName: string;
  path: string[];
  /** The run that owns the tool call (differs from the stream's run for sub-agents). */
  runId: string;
}

export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other' | 'suspended';

export type AgentChunk =
  | { type: 'start'; runId: string; payload: Record<string, never> }
  | { type: 'text-delta'; runId: string; payload: { text: string } }
  | { type: 'tool-call'; runId: string; payload: { toolCallId: string; toolName: string; args: unknown } }
  | {
      type: 'tool-result';
      runId: string;
      payload: { toolCallId: string; toolName: string; result: unknown; isError: boolean };
    }
  | { type: 'tool-call-approval'; runId: string; payload: ApprovalRequest }
  | { type: 'tool-call-suspended'; runId: string; payload: SuspensionRequest }
  | { type: 'tool-call-blocked'; runId: string; payload: BlockedCall }
  | { type: 'step-finish'; runId: string; payload: { step: number } }
  | { type: 'finish'; runId: string; payload: { finishReason: FinishReason; text: string } }
  | { type: 'error'; runId: string; payload: { error: unknown } };

/** What `generate()` and `result` report; `suspendPayload` is set when the run paused. */
export interface SuspendPayload {
  toolCallId: string;
  toolName: string;
  args: unknown;
  path: string[];
  runId: string;
  kind: 'approval' | 'suspension';
  /** For suspensions: what the tool passed to `suspend()`. */
  suspendPayload?: unknown;
}

export interface GenerateResult {
  runId: string;
  text: string;
  finishReason: FinishReason;
  suspendPayload?: SuspendPayload;
  /** Every call still waiting, in order, when the run paused. */
  pending: SuspendPayload[];
  toolCalls: Array<{ toolCallId: string; toolName: string; args: unknown }>;
  toolResults: Array<{ toolCallId: string; toolName: string; result: unknown; isError: boolean }>;
  error?: unknown;
}
