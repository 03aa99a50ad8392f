/** The package's public API: define agents and tools, drive and decide runs from code. */
export { Agent, type AgentConfig } from './agent/agent.js';
export type { StreamOptions, UserInput, AgentStream, AgentChunk, ApprovalRequest, SuspensionRequest, GenerateResult, SuspendPayload, FinishReason, Decision, DecisionRequest, Actor, ResumeRequest, RequireToolApproval, RequireToolApprovalContext, BeforeToolCallHook, BeforeToolCallContext, BeforeToolCallVerdict } from './agent/types.js';
export { createTool, type Tool, type ToolDefinition, type ToolExecutionContext } from './agent/tool.js';
export { askUserTool, type AskUserPayload } from './agent/ask-user.js';
export type { SuspendedRun, SuspendedToolCall } from './db/rows.js';
export { AgentError, type AgentErrorCode, SnapshotNotFoundError, ToolCallNotPendingError, ResumeValidationError, AmbiguousToolCallError, ModelConfigError, LeaseLostError, ClaimLostError } from './agent/errors.js';
export { resolveModel } from './agent/model.js';
export { fingerprint, shortFingerprint } from './approvals/fingerprint.js';
export { definePolicy } from './approvals/define-policy.js';
export { loadPolicyFile } from './approvals/load-policy-file.js';
export type { Policy, PolicyInput } from './approvals/policy-schema.js';
export { cachedGroupResolver, type GroupResolver } from './approvals/group-resolver.js';
export { listAuditEvents, type AuditEvent } from './db/audit.js';
export { startExpirySweeper } from './agent/sweeps.js';
export { openDatabase, type Database, type DatabaseOptions } from './db/database.js';
export { migrate } from './db/migrate.js';
export { createLogger } from './logger.js';
export { suspendedRunsRoute, type SuspendedRunsRouteOptions } from './http/suspended-runs-route.js';
