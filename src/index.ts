/** The package's public API: define agents and tools, drive and decide runs from code. */
export { Agent, type AgentConfig, type StreamOptions, type UserInput } from './agent/agent.js';
export { createTool, type Tool, type ToolDefinition, type ToolExecutionContext } from './agent/tool.js';
export { askUserTool, type AskUserPayload } from './agent/ask-user.js';
export type { AgentStream } from './agent/agent-stream.js';
export type { AgentChunk, ApprovalRequest, SuspensionRequest, GenerateResult, SuspendPayload, FinishReason } from './agent/chunks.js';
export type { Decision, DecisionRequest, Actor } from './agent/decision.js';
export type { SuspendedRun, SuspendedToolCall } from './agent/list-suspended-runs.js';
export type { ResumeRequest } from './agent/resume-suspended.js';
export type { RequireToolApproval, RequireToolApprovalContext } from './agent/requires-approval.js';
export type { BeforeToolCallHook, BeforeToolCallContext } from './agent/agent-internals.js';
export {
  AgentError,
  SnapshotNotFoundError,
  ToolCallNotPendingError,
  ResumeValidationError,
  AmbiguousToolCallError,
  ModelConfigError,
  ClaimLostError,
} from './agent/errors.js';
export { resolveModel } from './agent/model.js';
export { fingerprint, shortFingerprint } from './approvals/fingerprint.js';
export { definePolicy } from './approvals/define-policy.js';
export { loadPolicyFile } from './approvals/load-policy-file.js';
export type { Policy, PolicyInput } from './approvals/policy-schema.js';
export { cachedGroupResolver, type GroupResolver } from './approvals/group-resolver.js';
export { listAuditEvents, type AuditEvent } from './approvals/audit.js';
export { startExpirySweeper } from './approvals/expiry.js';
export { openDatabase, type Database, type DatabaseOptions } from './db/database.js';
export { migrate } from './db/migrate.js';
export { createLogger } from './logger.js';
export { suspendedRunsRoute, type SuspendedRunsRouteOptions } from './http/suspended-runs-route.js';
