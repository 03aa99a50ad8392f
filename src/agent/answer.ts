import type { ResumeRequest, Actor, AgentStream } from './api-types.js';
import type { AgentInternals, RuntimeDeps, LiveOptions } from './run-model.js';
import type { LanguageModelV3Message } from '@ai-sdk/provider';
import { z } from 'zod';
import { recordResume } from '../db/pending-actions.js';
import type { PendingAction } from '../db/rows.js';
import { StreamSink } from './stream.js';
import { callModel } from './call-model.js';
import { apiActor, locateAction, workspaceRefusal } from './decide.js';
import { startContinuation } from './run-lifecycle.js';
import { findAgent } from './run-state.js';
import { listSuspendedRuns } from '../db/run-snapshots.js';
import { extractionPrompt } from './extraction-prompt.js';
import { resumeSchemaFor } from './tool.js';
import { ResumeValidationError, SnapshotNotFoundError, ToolCallNotPendingError } from './errors.js';
import { authorizeAnswer } from '../approvals/authorize-answer.js';
import type { Authorization } from '../approvals/authorize-actor.js';
import { requirementOfRequest } from '../approvals/requirement-for.js';

/**
 * With auto-resume, a new message in a thread whose run waits on a
 * self-suspended tool answers that tool. Approvals are never touched here: a
 * message saying "yes" is not a decision by an authorised approver.
 */
export async function tryAutoResume(
  root: AgentInternals,
  deps: RuntimeDeps,
  req: { threadId: string; resourceId: string; messages: LanguageModelV3Message[]; requester?: string | undefined; requesterTeamId?: string | undefined; live?: LiveOptions | undefined },
): Promise<AgentStream | undefined> {
  const runs = await listSuspendedRuns(deps.db, root.id, { threadId: req.threadId, resourceId: req.resourceId });
  const waiting = runs
    .flatMap((r) => r.toolCalls.filter((c) => !c.requiresApproval).map((c) => ({ run: r, call: c })))
    .sort((a, b) => b.call.actionId - a.call.actionId)[0];
  if (!waiting) return undefined;
  const text = lastUserText(req.messages);
  const pending = () => [
    {
      kind: 'suspension' as const,
      toolCallId: waiting.call.toolCallId,
      toolName: waiting.call.toolName,
      args: waiting.call.args,
      path: waiting.call.path,
      runId: waiting.call.runId,
      suspendPayload: waiting.call.suspendPayload,
    },
  ];
  // A message from someone who may not answer the tool is not its answer, whatever it says.
  const actor = req.requester ? { userId: req.requester, ...(req.requesterTeamId !== undefined ? { teamId: req.requesterTeamId } : {}) } : apiActor;
  const action = { tool_name: waiting.call.toolName, args: waiting.call.args, requester: waiting.call.requester };
  const verdict = await mayAnswer(deps, action, actor).catch(() => ({ allowed: false as const, message: 'Could not check who may answer right now; try again in a moment.' }));
  if (!verdict.allowed) {
    deps.logger.info({ runId: waiting.call.runId, toolCallId: waiting.call.toolCallId, actor: actor.userId }, 'reply not taken as an answer: not allowed to answer');
    const sink = replyOnly(waiting.run.runId, `This message was not used as the answer for ${waiting.call.toolName}: ${verdict.message}`);
    sink.finishWaiting(pending());
    return sink.toStream();
  }
  const agent = findAgent(root, waiting.call.path);
  const tool = agent?.tools[waiting.call.toolName];
  const schema = tool ? resumeSchemaFor(tool, waiting.call.args) : undefined;
  const extracted = schema ? await extract(root, schema, text, waiting.call.suspendPayload, waiting.run.runId) : { ok: true as const, data: text };
  if (!extracted.ok) {
    const sink = replyOnly(waiting.run.runId, `I still need an answer for ${waiting.call.toolName}: ${extracted.message}`);
    sink.finishWaiting(pending());
    return sink.toStream();
  }
  const row = await recordResume(deps.db, { actionId: waiting.call.actionId, resumeData: extracted.data, actor: actor.userId });
  if (!row) {
    // Answered at the same moment by other means (a form, another reply): that answer stands,
    // and this reply must not start a run of its own as if it were a new request.
    const sink = replyOnly(waiting.run.runId, `${waiting.call.toolName} was answered a moment ago, so this reply was not used.`);
    sink.finish('stop');
    return sink.toStream();
  }
  return startContinuation(root, deps, row.run_id, row.root_run_id, undefined, undefined, req.live);
}

/** A stream for the run that only says `text`: the reply was not taken as the tool's answer. */
function replyOnly(runId: string, text: string): StreamSink {
  const sink = new StreamSink(runId);
  sink.push({ type: 'text-delta', runId, payload: { text } });
  return sink;
}

function lastUserText(messages: LanguageModelV3Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user') return m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n').trim();
  }
  return '';
}

const yes = /^(y|yes|yeah|yep|sure|ok|okay|confirm|confirmed|go|go ahead|do it|true|approve)\b/i;

const no = /^(n|no|nope|stop|cancel|abort|false|don'?t)\b/i;

/** Cheap readings first (the text itself, JSON, a one-field object); the model only when they fail. */
async function extract(
  root: AgentInternals,
  schema: z.ZodType,
  text: string,
  suspendPayload: unknown,
  runId: string,
): Promise<{ ok: true; data: unknown } | { ok: false; message: string }> {
  const candidates: unknown[] = [text];
  try {
    candidates.push(JSON.parse(text));
  } catch {
    // not JSON; other readings follow
  }
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : undefined;
  const keys = shape ? Object.keys(shape) : [];
  if (keys.length === 1) {
    const key = keys[0]!;
    candidates.push({ [key]: text });
    if (yes.test(text)) candidates.push({ [key]: true });
    if (no.test(text)) candidates.push({ [key]: false });
    if (text !== '' && Number.isFinite(Number(text))) candidates.push({ [key]: Number(text) });
  }
  for (const candidate of candidates) {
    const checked = schema.safeParse(candidate);
    if (checked.success) return { ok: true, data: checked.data };
  }
  try {
    const jsonSchema = JSON.stringify(z.toJSONSchema(schema, { unrepresentable: 'any' }));
    const step = await callModel(
      root.model,
      [
        {
          role: 'system',
          content: extractionPrompt(jsonSchema, suspendPayload),
        },
        { role: 'user', content: [{ type: 'text', text }] },
      ],
      [],
      () => {},
      // Step 0: the reading of a reply, not a step of the run.
      { runId, agentId: root.id, step: 0, ...(root.callSettings ? { settings: root.callSettings } : {}) },
    );
    const raw = step.text.trim().replace(/^```(?:json)?\s*|\s*```$/g, '');
    const checked = schema.safeParse(JSON.parse(raw));
    if (checked.success) return { ok: true, data: checked.data };
    return { ok: false, message: checked.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ') };
  } catch {
    return { ok: false, message: 'the reply did not fit what the tool asked for' };
  }
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
  live?: LiveOptions,
  located?: Awaited<ReturnType<typeof locateAction>>,
): Promise<AgentStream> {
  const found = located ?? (await locateAction(root, deps, req, ['suspension']));
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
  return startContinuation(root, deps, row.run_id, row.root_run_id, undefined, startAfter, live);
}

function validateResumeData(
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

/**
 * Who may answer this question or suspended call, under the current policy:
 * its run's requester or an approver of its tool (see authorizeAnswer). Every
 * way of answering goes through this (resumeStream, auto-resume, the Slack
 * forms), as every decision goes through authorizeActor.
 */
export async function mayAnswer(
  deps: RuntimeDeps,
  action: Pick<PendingAction, 'tool_name' | 'args' | 'requester'> & { path?: string[] | null; limit_hits?: unknown },
  actor: Actor,
): Promise<Authorization> {
  const outside = workspaceRefusal(deps, actor);
  if (outside) return outside;
  return authorizeAnswer({
    actor,
    approvers: requirementOfRequest(deps.policy, action, deps.mcpIdentity, deps.now()).approvers,
    toolName: action.tool_name,
    ...(action.requester !== null ? { requester: action.requester } : {}),
    ...(deps.botUserId ? { botUserId: deps.botUserId } : {}),
    ...(deps.resolveGroupMembers ? { resolveGroupMembers: deps.resolveGroupMembers } : {}),
  });
}
