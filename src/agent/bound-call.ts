import type { CallOutcome, CallTarget, PlannedAction, RunState } from './run-model.js';
import type { DefinitionPin, Tool, ToolPreviewContext } from './tool.js';
import type { Emitter } from './stream.js';
import type { PendingAction } from '../db/rows.js';
import { errorMessage } from '../error-message.js';
import { appendAudit } from '../db/audit.js';
import { definitionChanges, type DefinitionChange } from '../approvals/tool-definition.js';
import {
  bindingColumns,
  bindingOfRow,
  bindingPayload,
  PREVIEW_LIMITS,
  stateDigestOf,
  stateKey,
  toolPreviewSchema,
  type AskedAgainWhy,
  type PinnedTool,
  type RequestBinding,
  type StoredPreview,
} from './request-binding.js';

/**
 * Approvals bound to what will actually happen. A call that waits for approval is bound, besides
 * its arguments (the fingerprint), to the state its tool's `preview` saw and, for a tool of an MCP
 * server, to the tool's definition as the server declared it; right before an approved call runs,
 * both are worked out again and must be what was approved, or the call does not run: it is asked
 * again with what holds now. Each costs its own call (the preview run, the server re-listed) at
 * the request and again before the run: what they yield rides on the statements the request, the
 * vote and the grant check write anyway, and nothing is held in memory while the run waits.
 */

/** What a call that waits for approval is asked with, or the result that stops it (a preview or definition that could not be read). */
type BindOutcome = { kind: 'bound'; binding: RequestBinding } | { kind: 'refused'; outcome: CallOutcome };

/** Whether asking for this call, or running it once approved, has anything to work out (a preview, a pinned definition). */
export function hasBinding(target: CallTarget): boolean {
  return target.kind === 'tool' && (target.tool.preview !== undefined || target.tool.definitionPin !== undefined);
}

/**
 * What a request for this call is bound to: the stated reason, and for a tool with them (see
 * hasBinding) its definition as its server declares it now (re-listed) and its preview. A
 * definition that changed since the model was given the tool, a tool the server no longer has or
 * cannot list, and a failing preview of a tool that refuses then (the default) stop the call:
 * no request, no card, the model is told why and `blocked` is audited.
 */
export async function bindRequest(
  run: RunState,
  target: CallTarget,
  call: { toolCallId: string; toolName: string },
  args: unknown,
  statedReason: string | undefined,
  out: Emitter,
): Promise<BindOutcome> {
  const binding: RequestBinding = statedReason !== undefined ? { statedReason } : {};
  if (target.kind !== 'tool') return { kind: 'bound', binding };
  const tool = target.tool;
  if (tool.definitionPin) {
    const current = await currentDefinition(tool.definitionPin);
    if ('error' in current) return refuse(run, call, out, `its MCP server's definition of the tool could not be read (${current.error})`, { reason: 'tool definition unreadable', error: current.error });
    if (!current.pin) return refuse(run, call, out, 'its MCP server no longer offers it', { reason: 'tool gone' });
    if (current.pin.digest !== tool.definitionPin.digest) {
      const changes = definitionChanges(tool.definitionPin.definition, current.pin.definition);
      run.log.warn({ toolCallId: call.toolCallId, tool: call.toolName, changes }, 'MCP tool definition changed since the model was given it; call not asked');
      return refuse(run, call, out, `its MCP server changed the tool (${partsOf(changes)}) since you were given it. Read its description and input schema again before calling it`, { reason: 'tool definition changed', changes });
    }
    binding.toolPin = current.pin;
  }
  if (tool.preview) {
    const preview = await runPreview(run, tool, call, args);
    if ('failed' in preview && tool.onPreviewError !== 'ask') {
      return refuse(run, call, out, `its preview failed, so nobody was asked to approve it (${preview.failed})`, { reason: 'preview failed', error: preview.failed });
    }
    binding.preview = preview;
  }
  return { kind: 'bound', binding };
}

const nothingBound: BindOutcome = { kind: 'bound', binding: {} };

/** What a call of a tool without a preview or a pinned definition is bound to: the stated reason, if any. */
export function reasonOnly(statedReason: string | undefined): BindOutcome {
  return statedReason === undefined ? nothingBound : { kind: 'bound', binding: { statedReason } };
}

/** A call asked for again (the policy changed under its request): bound anew, the model's stated reason carried over. */
export async function bindAgain(run: RunState, target: CallTarget, row: PendingAction, args: unknown, out: Emitter): Promise<BindOutcome> {
  const { statedReason } = bindingOfRow(row);
  if (hasBinding(target)) return bindRequest(run, target, { toolCallId: row.tool_call_id, toolName: row.tool_name }, args, statedReason, out);
  return reasonOnly(statedReason);
}

/** The request `action` will write, bound as `binding` says: on its row and on the chunk that announces it. */
export function withBinding(action: PlannedAction, binding: RequestBinding): PlannedAction {
  if (!binding.statedReason && !binding.preview && !binding.toolPin && !binding.askedAgain) return action;
  const announce = action.announce?.kind === 'approval' ? { announce: { kind: 'approval' as const, payload: { ...action.announce.payload, ...bindingPayload(binding) } } } : {};
  return { ...action, write: { ...action.write, ...bindingColumns(binding) }, ...announce };
}

/** What an approved call is checked against right before it runs, the grant included. */
type BindingCheck =
  /** What was approved holds: the grant must carry these digests. */
  | { kind: 'same'; stateDigest: string | null; toolDigest: string | null }
  /** It moved: the call is asked again, bound as `binding` (its `askedAgain` says why), of `target` (the tool as it is now). */
  | { kind: 'ask-again'; binding: RequestBinding; target: CallTarget; why: AskedAgainWhy }
  /** It cannot be checked (a preview that failed, a definition that cannot be read): the call does not run. */
  | { kind: 'refused'; outcome: CallOutcome };

/** The grant check's digests for a call with nothing bound besides its arguments. */
export const unbound: BindingCheck = { kind: 'same', stateDigest: null, toolDigest: null };

/** Whether an approved call has anything to check besides its arguments: its tool has a preview or a pin, or its request was bound to one. */
export function mustCheckBinding(target: CallTarget, row: PendingAction): boolean {
  return hasBinding(target) || row.preview != null || row.tool_pin != null;
}

/**
 * Right before an approved call runs: its tool's definition (re-listed from its server) must be
 * the one its request was pinned to, and its preview (run again) must give the state approved
 * (see ToolDefinition.onPreviewError for a preview that fails). When one moved, the call is asked
 * again with what holds now; a definition that changed so that the arguments no longer fit, a
 * tool the server dropped, or a failing preview of a tool that refuses then, stop the call.
 */
export async function checkBinding(run: RunState, target: CallTarget, row: PendingAction, args: unknown, out: Emitter): Promise<BindingCheck> {
  const call = { toolCallId: row.tool_call_id, toolName: row.tool_name };
  const approved = bindingOfRow(row);
  const carried: RequestBinding = approved.statedReason !== undefined ? { statedReason: approved.statedReason } : {};
  let tool = target.kind === 'tool' ? target.tool : undefined;
  let toolDigest: string | null = null;
  let changes: DefinitionChange[] | undefined;
  if (tool?.definitionPin || approved.toolPin) {
    const current = tool?.definitionPin ? await currentDefinition(tool.definitionPin) : { pin: undefined };
    if ('error' in current) return refuseApproved(run, row, out, `its MCP server's definition of the tool could not be checked before it ran (${current.error})`, { reason: 'tool definition unreadable', error: current.error });
    if (!current.pin) return refuseApproved(run, row, out, 'its MCP server no longer offers it', { reason: 'tool gone' });
    toolDigest = current.pin.digest;
    carried.toolPin = current.pin;
    if (current.pin.digest !== approved.toolPin?.digest) {
      changes = definitionChanges(approved.toolPin?.definition, current.pin.definition);
      // Re-listing gave the agent the tool as it is now: the new request is for it, with arguments that still fit it.
      const now = run.agent.tools[row.tool_name];
      if (!now) return refuseApproved(run, row, out, 'its MCP server no longer offers it', { reason: 'tool gone' });
      const fits = now.inputSchema.safeParse(args);
      if (!fits.success) {
        const issues = fits.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
        return refuseApproved(run, row, out, `its MCP server changed the tool (${partsOf(changes)}) after the call was approved, and its arguments no longer fit it: ${issues}`, { reason: 'tool definition changed', changes });
      }
      tool = now;
      target = { kind: 'tool', tool: now };
    }
  }
  let stateDigest: string | null = null;
  let preview: StoredPreview | undefined;
  if (tool?.preview || approved.preview) {
    preview = tool?.preview ? await runPreview(run, tool, call, args) : undefined;
    stateDigest = stateDigestOf(preview);
    if (preview && 'failed' in preview && tool?.onPreviewError !== 'ask') {
      return refuseApproved(run, row, out, `its preview failed right before it was to run, so the state it was approved for could not be checked (${preview.failed})`, { reason: 'preview failed', error: preview.failed });
    }
  }
  if (changes) return askAgainWith(run, row, target, { ...carried, ...(preview ? { preview } : {}) }, 'tool-changed', changes);
  if (stateKey(preview) === stateKey(approved.preview)) return { kind: 'same', stateDigest, toolDigest };
  const why: AskedAgainWhy =
    preview && 'failed' in preview ? 'preview-failed' : preview && approved.preview && !('failed' in approved.preview) ? 'state-changed' : 'not-previewed';
  return askAgainWith(run, row, target, { ...carried, ...(preview ? { preview } : {}) }, why);
}

function askAgainWith(run: RunState, row: PendingAction, target: CallTarget, binding: RequestBinding, why: AskedAgainWhy, changes?: DefinitionChange[]): BindingCheck {
  run.log.info({ toolCallId: row.tool_call_id, tool: row.tool_name, actionId: row.id, why, ...(changes ? { changes } : {}) }, askedAgainLine[why]);
  run.audit.push({
    event: 'superseded',
    runId: run.runId,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    fingerprint: row.fingerprint,
    policyVersion: row.policy_version,
    detail: { reason: askedAgainLine[why], why, actionId: row.id, ...(changes ? { changes } : {}) },
  });
  return { kind: 'ask-again', binding: { ...binding, askedAgain: { fromActionId: row.id, why, ...(changes ? { changes } : {}) } }, target, why };
}

/** What the log and the audit trail say of an approved call asked again. */
const askedAgainLine: Record<AskedAgainWhy, string> = {
  'state-changed': 'the state the call acts on changed since it was approved; asked again',
  'preview-failed': 'the preview failed right before the approved call was to run; asked again',
  'not-previewed': 'the call was approved without the preview it has now; asked again',
  'tool-changed': 'the MCP server changed the tool since the call was approved; asked again',
  freeze: 'a change freeze began after the call was approved; asked again',
  'policy-changed': 'policy changed after approval, before the call ran; asked again',
};

/** The preview of a call, checked (PREVIEW_LIMITS); a throw or a malformed result is its failure, with why. */
async function runPreview(run: RunState, tool: Tool, call: { toolCallId: string; toolName: string }, args: unknown): Promise<StoredPreview> {
  const context: ToolPreviewContext = {
    toolCallId: call.toolCallId,
    runId: run.runId,
    ...(run.threadId ? { threadId: run.threadId } : {}),
    ...(run.resourceId ? { resourceId: run.resourceId } : {}),
    ...(run.options.requester ? { requester: run.options.requester } : {}),
    requestContext: run.requestContext,
    ...(run.live?.abortSignal ? { abortSignal: run.live.abortSignal } : {}),
  };
  let result: unknown;
  try {
    result = await tool.preview!(args, context);
  } catch (error) {
    run.log.warn({ err: error, toolCallId: call.toolCallId, tool: call.toolName }, 'tool preview failed');
    return { failed: cut(errorMessage(error)) };
  }
  const parsed = toolPreviewSchema.safeParse(result);
  if (parsed.success) return JSON.parse(JSON.stringify(parsed.data)) as StoredPreview;
  const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(preview)'}: ${i.message}`).join('; ');
  run.log.warn({ toolCallId: call.toolCallId, tool: call.toolName, issues }, 'tool preview returned a malformed result');
  return { failed: cut(`the preview returned a malformed result: ${issues}`) };
}

function cut(text: string): string {
  return text.length <= PREVIEW_LIMITS.failure ? text : `${text.slice(0, PREVIEW_LIMITS.failure - 1)}…`;
}

/** The definition a tool's source declares now; `error` when it could not be asked. */
async function currentDefinition(pin: DefinitionPin): Promise<{ pin: PinnedTool | undefined } | { error: string }> {
  try {
    const now = await pin.current();
    return { pin: now ? { digest: now.digest, definition: now.definition } : undefined };
  } catch (error) {
    return { error: errorMessage(error) };
  }
}

function partsOf(changes: readonly DefinitionChange[]): string {
  const names: Record<DefinitionChange['part'], string> = { name: 'name', title: 'title', description: 'description', inputSchema: 'input schema', annotations: 'annotations', definition: 'definition' };
  return changes.map((c) => names[c.part]).join(', ') || 'definition';
}

/** A call that is not asked for: the model is told why, `blocked` audited (riding on the run's next write). */
function refuse(run: RunState, call: { toolCallId: string; toolName: string }, out: Emitter, why: string, detail: Record<string, unknown>): BindOutcome {
  const message = `Tool ${call.toolName} did not run: ${why}.`;
  run.audit.push({ event: 'blocked', runId: run.runId, toolCallId: call.toolCallId, toolName: call.toolName, detail });
  out.toolResult(call.toolCallId, call.toolName, message, true);
  return { kind: 'refused', outcome: { kind: 'result', output: { type: 'error-text', value: message } } };
}

/**
 * An approved call that does not run: the model is told why, and its card (tool-call-blocked),
 * which is redrawn from the `blocked` event as soon as the stream says so: written now, with what
 * else waited to ride on the run's next write, as for a grant that did not match (approved-call.ts).
 */
async function refuseApproved(run: RunState, row: PendingAction, out: Emitter, why: string, detail: Record<string, unknown>): Promise<BindingCheck> {
  const message = `Tool ${row.tool_name} did not run: ${why}.`;
  run.log.warn({ toolCallId: row.tool_call_id, tool: row.tool_name, ...detail }, 'approved call not run: what it was bound to could not be checked');
  await appendAudit(run.deps.db, [
    ...run.audit.splice(0),
    {
      event: 'blocked',
      runId: run.runId,
      toolCallId: row.tool_call_id,
      toolName: row.tool_name,
      fingerprint: row.fingerprint,
      policyVersion: row.policy_version,
      detail: { ...detail, actionId: row.id },
    },
  ]);
  out.toolResult(row.tool_call_id, row.tool_name, message, true);
  out.blocked({ toolCallId: row.tool_call_id, toolName: row.tool_name, path: run.path, runId: run.runId });
  return { kind: 'refused', outcome: { kind: 'result', output: { type: 'error-text', value: message } } };
}
