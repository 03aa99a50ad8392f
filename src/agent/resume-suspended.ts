import { recordResume } from '../approvals/record-decision.js';
import type { AgentInternals } from './agent-internals.js';
import type { AgentStream } from './agent-stream.js';
import { apiActor, locateAction, startContinuation } from './decide.js';
import { mayAnswer } from './may-answer.js';
import type { Actor } from './decision.js';
import { findAgent } from './drive.js';
import { ResumeValidationError, SnapshotNotFoundError, ToolCallNotPendingError } from './errors.js';
import type { RuntimeDeps } from './run-state.js';
import { resumeSchemaFor } from './tool.js';

export interface ResumeRequest {
  runId: string;
  toolCallId?: string;
  actionId?: number;
  actor?: Actor;
}

/**
 * Gives a self-suspended tool its data, from someone who may answer it (see
 * mayAnswer). The data is checked against the tool's `resumeSchema` first:
 * bad data is refused and the run stays suspended.
 */
export async function resumeSuspended(
  root: AgentInternals,
  deps: RuntimeDeps,
  resumeData: unknown,
  req: ResumeRequest,
  startAfter?: PromiseLike<unknown>,
): Promise<AgentStream> {
  const found = await locateAction(root, deps, req, ['suspension']);
  if ('outcome' in found) {
    if (!found.runExists) throw new SnapshotNotFoundError(req.runId);
    throw new ToolCallNotPendingError('not-found', req.runId, req.toolCallId);
  }
  if (found.status !== 'pending') {
    throw new ToolCallNotPendingError('already-decided', req.runId, found.tool_call_id, `status ${found.status}`);
  }
  // Code that names nobody answers as `api`, held to the same rule as any person.
  const actor = req.actor ?? apiActor;
  const verdict = await mayAnswer(deps, found, actor).catch((error: unknown) => {
    deps.logger.warn({ err: error, actor: actor.userId }, 'approver group lookup failed');
    return { allowed: false as const, why: 'group-lookup-failed', message: 'Could not check approver group membership right now; try again in a moment.' };
  });
  if (!verdict.allowed) {
    deps.logger.info({ runId: found.run_id, toolCallId: found.tool_call_id, actor: actor.userId, why: verdict.why }, 'answer refused');
    throw new ToolCallNotPendingError('not-allowed', req.runId, found.tool_call_id, verdict.message);
  }
  const data = validateResumeData(root, found.path ?? [], found.tool_name, found.args, resumeData, found.run_id, found.tool_call_id);
  const row = await recordResume(deps.db, { actionId: found.id, resumeData: data, actor: actor.userId });
  if (!row) throw new ToolCallNotPendingError('already-decided', req.runId, found.tool_call_id);
  return startContinuation(root, deps, row.run_id, row.root_run_id, undefined, startAfter);
}

export function validateResumeData(
  root: AgentInternals,
  path: string[],
  toolName: string,
  args: unknown,
  resumeData: unknown,
  runId: string,
  toolCallId: string,
): unknown {
  const tool = findAgent(root, path)?.tools[toolName];
  const schema = tool ? resumeSchemaFor(tool, args) : undefined;
  if (!schema) return resumeData;
  const checked = schema.safeParse(resumeData);
  if (!checked.success) {
    throw new ResumeValidationError(
      runId,
      toolCallId,
      checked.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`),
    );
  }
  return checked.data;
}
