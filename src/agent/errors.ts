/**
 * Typed errors for the truly exceptional; each carries a stable `code` and the
 * ids involved so a caller (or a log search) can tell exactly what failed.
 */
export class AgentError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: { runId?: string; toolCallId?: string; [key: string]: unknown } = {},
  ) {
    super(message);
    this.name = 'AgentError';
  }
}

export class SnapshotNotFoundError extends AgentError {
  constructor(runId: string, toolCallId?: string) {
    super(
      'SNAPSHOT_NOT_FOUND',
      `snapshot not found for run ${runId}${toolCallId ? ` (tool call ${toolCallId})` : ''}: it is unknown or has already finished`,
      { runId, ...(toolCallId ? { toolCallId } : {}) },
    );
    this.name = 'SnapshotNotFoundError';
  }
}

export type NotPendingReason =
  | 'not-found'
  | 'already-decided'
  | 'expired'
  | 'not-allowed'
  | 'policy-changed'
  | 'fingerprint-mismatch'
  | 'not-an-approval'
  | 'not-a-suspension';

export class ToolCallNotPendingError extends AgentError {
  constructor(
    readonly reason: NotPendingReason,
    runId: string,
    toolCallId: string | undefined,
    detail?: string,
  ) {
    super(
      'TOOL_CALL_NOT_PENDING',
      `tool call ${toolCallId ?? '(most recent)'} of run ${runId} cannot be decided: ${reason}${detail ? ` (${detail})` : ''}`,
      { runId, toolCallId, reason },
    );
    this.name = 'ToolCallNotPendingError';
  }
}

export class ResumeValidationError extends AgentError {
  constructor(runId: string, toolCallId: string, readonly issues: string[]) {
    super(
      'RESUME_DATA_INVALID',
      `resume data for tool call ${toolCallId} of run ${runId} is invalid: ${issues.join('; ')}`,
      { runId, toolCallId },
    );
    this.name = 'ResumeValidationError';
  }
}

export class AmbiguousToolCallError extends AgentError {
  constructor(runIds: string[], toolCallIds: string[]) {
    super(
      'AMBIGUOUS_TOOL_CALL',
      `several pending tool calls match (${toolCallIds.join(', ')}); pass a toolCallId`,
      { runIds, toolCallIds },
    );
    this.name = 'AmbiguousToolCallError';
  }
}

export class ModelConfigError extends AgentError {
  constructor(message: string, model: string) {
    super('MODEL_CONFIG_INVALID', message, { model });
    this.name = 'ModelConfigError';
  }
}
