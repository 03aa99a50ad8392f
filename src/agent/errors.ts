/** Every code an AgentError can carry: stable, for callers and log searches. */
export type AgentErrorCode =
  | 'AGENT_INVALID'
  | 'NO_STORAGE'
  | 'SNAPSHOT_NOT_FOUND'
  | 'TOOL_CALL_NOT_PENDING'
  | 'RESUME_DATA_INVALID'
  | 'AMBIGUOUS_TOOL_CALL'
  | 'MODEL_CONFIG_INVALID'
  | 'MODEL_SETTINGS_INVALID'
  | 'MODEL_CALL_FAILED'
  | 'RUN_ABORTED'
  | 'LEASE_LOST'
  | 'OUTSIDE_WORKSPACE'
  /** An edit could not be recorded: the cumulative limits it is counted against kept moving (see editToolCall). */
  | 'EDIT_CONTENDED'
  | 'OPTIONS_INVALID';

/**
 * Typed errors for the truly exceptional; each carries a stable `code` and the
 * ids involved so a caller (or a log search) can tell exactly what failed.
 */
export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    readonly details: { runId?: string; toolCallId?: string; [key: string]: unknown } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
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
    /** Why, in a sentence a person can be shown (a refusal's message, say). */
    readonly detail?: string,
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

/** Call settings (temperature, maxRetries, …) that a provider call cannot take; `issues` name each field. */
export class ModelSettingsError extends AgentError {
  constructor(where: string, readonly issues: string[]) {
    super('MODEL_SETTINGS_INVALID', `invalid model settings in ${where}: ${issues.join('; ')}`, { where });
    this.name = 'ModelSettingsError';
  }
}

/**
 * The model failed to answer (after any retries): the provider refused the
 * request (401, 400, …), could not be reached, or its stream reported an
 * error. `cause` is the provider's error; `statusCode` is set when it was an
 * HTTP answer.
 */
export class ModelCallError extends AgentError {
  readonly statusCode?: number;
  constructor(
    cause: unknown,
    details: { runId: string; agentId: string; model: string; step: number; attempts: number },
  ) {
    const status = statusCodeOf(cause);
    super(
      'MODEL_CALL_FAILED',
      `model ${details.model} failed: ${causeMessage(cause)}${status ? ` (HTTP ${status})` : ''}`,
      { ...details, ...(status ? { statusCode: status } : {}) },
      { cause },
    );
    this.name = 'ModelCallError';
    if (status) this.statusCode = status;
  }
}

/**
 * The run was stopped through the `abortSignal` it was given. Nothing of it
 * runs any more and it leaves no record to resume: its pending requests, if
 * any, are cancelled.
 */
export class RunAbortedError extends AgentError {
  constructor(runId: string, reason: unknown) {
    super('RUN_ABORTED', `run ${runId} was aborted${reason instanceof Error ? `: ${reason.message}` : typeof reason === 'string' ? `: ${reason}` : ''}`, { runId }, { cause: reason });
    this.name = 'RunAbortedError';
  }
}

function statusCodeOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function causeMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
}

/**
 * This process's claim on a run it was continuing is gone: it went longer than
 * the lease without renewing it (a stall, a lost connection) and another
 * process took the run over. Nothing more of the run happens here.
 */
export class LeaseLostError extends AgentError {
  constructor(runId: string) {
    super('LEASE_LOST', `run ${runId} was taken over by another process after this one stopped renewing its claim; it continues there`, { runId });
    this.name = 'LeaseLostError';
  }
}

/**
 * A run asked for by someone who is not a member of the workspace the runtime serves (a Slack
 * Connect partner mentioning the bot, say) and not of a team the policy trusts: no run starts.
 * The refusal is on the audit trail (`refused`, why `outside-workspace`).
 */
export class OutsideWorkspaceError extends AgentError {
  constructor(runId: string, userId: string, teamId: string) {
    super('OUTSIDE_WORKSPACE', `${userId || 'someone'} of team ${teamId || '(unknown)'} is not a member of this workspace: no run was started`, { runId, userId, teamId });
    this.name = 'OutsideWorkspaceError';
  }
}

/**
 * Whether `error` is an AgentError with this code. A front end checks codes
 * rather than classes: an agent from an agents module may come from another
 * copy of this package (the built one) than the front end's, with classes of
 * its own.
 */
export function hasAgentErrorCode<C extends AgentErrorCode>(error: unknown, code: C): error is AgentError & { code: C } {
  return error instanceof Error && (error as { code?: unknown }).code === code;
}
