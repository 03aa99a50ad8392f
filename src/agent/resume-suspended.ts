import { recordResume } from '../approvals/record-decision.js';
import type { AgentInternals } from './agent-internals.js';
import type { AgentStream } from './agent-stream.js';
import { locateAction, startContinuation } from './decide.js';
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
 * Gives a self-suspended tool its data. The data is checked against the tool's
 * `resumeSchema` first: bad data is refused and the run stays suspended.
 */
export async function resumeSuspended(
  root: AgentInternals,
  deps: RuntimeDeps,
  resumeData: unknown,
  req: ResumeRequest,
): Promise<AgentStream> {
  const found = await locateAction(root, deps, req, ['suspension']);
  if ('outcome' in found) {
    if (!found.runExists) throw new SnapshotNotFoundError(req.runId);
    throw new ToolCallNotPendingError('not-found', req.runId, req.toolCallId);
  }
  if (found.status !== 'pending') {
    throw new ToolCallNotPendingError('already-decided', req.runId, found.tool_call_id, `status ${found.status}`);
  }
  const data = validateResumeData(root, found.path ?? [], found.tool_name, found.args, resumeData, found.run_id, found.tool_call_id);
  const row = await recordResume(deps.db, { actionId: found.id, resumeData: data, actor: req.actor?.userId ?? null });
  if (!row) throw new ToolCallNotPendingError('already-decided', req.runId, found.tool_call_id);
  return startContinuation(root, deps, row.run_id, row.root_run_id);
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
