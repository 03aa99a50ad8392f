import type { JSONSchema7 } from '@ai-sdk/provider';
import { rowLike } from './request.js';
import { childLogger } from './child-logger.js';
import { z } from 'zod';
import { fingerprint } from '../approvals/fingerprint.js';
import { requirementOfRequest, type PolicyDenial, type RequestFacts, type Requirement } from '../approvals/requirement-for.js';
import { recordEdit } from '../db/edit-action.js';
import type { PendingAction } from '../db/rows.js';
import type { Approval } from '../db/schema.js';
import { observeDecision } from '../metrics/bot-metrics.js';
import { apiActor, auditRefusal, checkDecision, decide, locateAction, mayDecide, refreshed, type DecisionContext } from './decide.js';
import { unreachable } from '../unreachable.js';
import { startContinuation } from './run-lifecycle.js';
import { previewEditedLimits } from './count-limits.js';
import { AgentError } from './errors.js';
import { findAgent } from './run-state.js';
import type { Tool } from './tool.js';
import type { Actor, AgentStream, Decision, DecisionRequest } from './api-types.js';
import type { AgentInternals, RuntimeDeps } from './run-model.js';

/** An approver's edit: the request (by id, or run + call), who edits, the arguments as edited. */
export interface EditRequest extends Pick<DecisionRequest, 'runId' | 'toolCallId' | 'actionId' | 'actor'> {
  args: unknown;
  /** The fingerprint (or its prefix) of the arguments the editor saw: the edit is refused if they moved on. */
  fingerprint?: string;
}

type Refusal = Extract<Decision, { outcome: 'not-allowed' | 'already-decided' | 'expired' | 'policy-changed' | 'fingerprint-mismatch' | 'not-found' }>;

/**
 * Every way an edit can end. `action` is the new request (for the edited arguments) when the edit
 * was recorded, and `previous` the request it closed:
 * - `approved`: the editor's approval (with any carried over) met the quorum; the run goes on.
 * - `approval-recorded`: the editor's approval counts, others must still approve.
 * - `pending`: the editor may not approve the edited arguments (a bigger amount for finance,
 *   self-approval); the new request waits for those who may (`why`/`message` say why not).
 * - `unchanged`: the arguments are what was asked: a plain approve, whose decision is given.
 * - `invalid-args`: the tool's input schema refuses them (`issues` by argument path); nothing changed.
 * - `not-editable`: the policy turns editing off for this call, or its tool cannot be found.
 * - `denied`: the policy denies a call with the edited arguments (`denial` says why); nothing changed,
 *   the request still waits as it was asked.
 * - the decision refusals (not-allowed, already-decided, expired, fingerprint-mismatch, not-found).
 */
export type EditOutcome =
  | { outcome: 'approved'; action: PendingAction; previous: PendingAction; stream?: AgentStream }
  | { outcome: 'approval-recorded'; action: PendingAction; previous: PendingAction; approvals: string[]; quorum: number }
  | { outcome: 'pending'; action: PendingAction; previous: PendingAction; why: string; message: string }
  | { outcome: 'unchanged'; decision: Decision }
  | { outcome: 'invalid-args'; action: PendingAction; issues: Array<{ path: string; message: string }> }
  | { outcome: 'not-editable'; action: PendingAction; why: 'edit-not-allowed' | 'tool-not-found' }
  | { outcome: 'denied'; action: PendingAction; args: unknown; denial: PolicyDenial }
  | Refusal;

/**
 * The JSON Schema of the tool's input an editor fills in, or undefined when this request cannot be
 * edited: its tool is unknown (or a sub-agent), or the policy sets `allowEdit: false` for it.
 * An MCP tool's own schema as its server gave it; a tool of code's derived from its zod schema.
 */
export function editSchemaOf(root: AgentInternals, deps: RuntimeDeps, action: RequestFacts & Pick<PendingAction, 'kind'>): JSONSchema7 | undefined {
  if (action.kind !== 'approval') return undefined;
  const tool = toolAt(root, action);
  // The request's own requirement, the limits it went over included: a limit may turn editing off.
  return tool ? editSchemaFor(tool, requirementOfRequest(deps.policy, action, deps.mcpIdentity, deps.now())) : undefined;
}

/** The edit schema of an approval request of `tool` under its requirement (see editSchemaOf). */
export function editSchemaFor(tool: Tool | undefined, requirement: Pick<Requirement, 'allowEdit'>): JSONSchema7 | undefined {
  if (!tool || requirement.allowEdit === false) return undefined;
  if (tool.inputJsonSchema) return tool.inputJsonSchema;
  if (!derivedSchemas.has(tool)) derivedSchemas.set(tool, deriveSchema(tool));
  return derivedSchemas.get(tool);
}

/** An edit worked out again because what it was worked out from moved (carried approvals, limits) gives up after this many tries. */
const MAX_EDIT_ATTEMPTS = 5;

/** Cards are drawn often; a tool's schema is derived once. */
const derivedSchemas = new WeakMap<Tool, JSONSchema7 | undefined>();

function deriveSchema(tool: Tool): JSONSchema7 | undefined {
  try {
    return z.toJSONSchema(tool.inputSchema, { unrepresentable: 'throw', io: 'input' }) as JSONSchema7;
  } catch {
    return undefined;
  }
}

function toolAt(root: AgentInternals, action: Pick<RequestFacts, 'tool_name' | 'path'>): Tool | undefined {
  const agent = findAgent(root, [...(action.path ?? [root.id])]);
  return agent && Object.hasOwn(agent.tools, action.tool_name) ? agent.tools[action.tool_name] : undefined;
}

export async function editToolCall(root: AgentInternals, deps: RuntimeDeps, req: EditRequest, known: DecisionContext = {}): Promise<EditOutcome> {
  const edited = await recordEditOf(root, deps, req, known);
  if (edited.outcome === 'unchanged') return edited;
  if (edited.outcome === 'approved') observeDecision({ outcome: 'approved', action: edited.previous });
  else if (edited.outcome === 'approval-recorded') observeDecision({ outcome: 'approval-recorded', action: edited.action, approvals: edited.approvals, quorum: edited.quorum, alreadyCounted: false });
  else if (edited.outcome !== 'pending' && edited.outcome !== 'invalid-args' && edited.outcome !== 'not-editable' && edited.outcome !== 'denied') observeDecision(edited);
  return edited;
}

async function recordEditOf(root: AgentInternals, deps: RuntimeDeps, req: EditRequest, known: DecisionContext, attempt = 1): Promise<EditOutcome> {
  const found = await locateAction(root, deps, req, ['approval'], known.action ? { action: rowLike(known.action) } : undefined);
  if ('outcome' in found) return found;
  const action = found;
  const actor: Actor = req.actor ?? apiActor;
  const log = childLogger(deps.logger, { runId: action.run_id, toolCallId: action.tool_call_id, actionId: action.id });
  const refused = (why: string) => auditRefusal(deps, action, actor.userId, 'edit', why);

  // The same check a front end asks before it opens the Edit form (Agent.checkDecision): the editor
  // must be someone who may approve the request as it stands, and the request editable.
  const check = await checkDecision(root, deps, action, actor, 'edit', { fingerprint: req.fingerprint });
  switch (check.outcome) {
    case 'allowed':
      break;
    case 'expired':
      // Past its time, not yet swept: decide() expires it below, as it does for a late approve.
      if (!check.closed) break;
      await refused('expired');
      return { outcome: 'expired', action };
    case 'already-decided':
      await refused('already-decided');
      return { outcome: 'already-decided', action };
    case 'fingerprint-mismatch':
      await refused('fingerprint-mismatch');
      return { outcome: 'fingerprint-mismatch', action };
    case 'not-allowed':
      log.info({ actor: actor.userId, why: check.why }, 'edit refused');
      await refused(check.why);
      return { outcome: 'not-allowed', action, why: check.why, message: check.message };
    case 'not-editable':
      if (check.why === 'edit-not-allowed') await refused('edit-not-allowed');
      return { outcome: 'not-editable', action, why: check.why };
    case 'not-found':
      throw new Error(`edit check: not-found for approval request ${action.id}`);
    default:
      return unreachable(check, 'edit check');
  }
  const tool = toolAt(root, action)!;
  const parsed = tool.inputSchema.safeParse(req.args);
  if (!parsed.success) {
    return { outcome: 'invalid-args', action, issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })) };
  }
  const args: unknown = parsed.data;
  const fp = fingerprint(action.tool_name, args);
  // The arguments as asked (or edited back to them): an ordinary approval, with every rule it has.
  if (fp === action.fingerprint) {
    return {
      outcome: 'unchanged',
      decision: await decide(root, deps, { actionId: action.id, actor, fingerprint: fp }, 'approve', { action, ...(known.startAfter ? { startAfter: known.startAfter } : {}) }),
    };
  }
  if (action.expires_at && new Date(action.expires_at).getTime() <= Date.now()) {
    // decide() expires it and lets the run go on as it does for a late approve.
    const decision = await decide(root, deps, { actionId: action.id, actor }, 'approve', { action, ...(known.startAfter ? { startAfter: known.startAfter } : {}) });
    return decision.outcome === 'expired' ? decision : { outcome: 'already-decided', action: decision.outcome === 'not-found' ? action : decision.action };
  }

  // The edited arguments need what a new request for them would: approvers, quorum, expiry of now,
  // and every cumulative limit the call goes over once counted with them instead of the arguments
  // it was asked with (recordEdit counts it so, and lands only if the limits still agree). A tool
  // without limits keeps the hits it was asked with and spends no statement on them.
  const limits = await previewEditedLimits(
    deps.db,
    deps.policy,
    { runId: action.run_id, toolCallId: action.tool_call_id, toolName: action.tool_name, args, requester: action.requester },
    deps.mcpIdentity?.(action.tool_name, action.path ?? null),
  );
  const edited = {
    tool_name: action.tool_name,
    args,
    requester: action.requester,
    path: action.path,
    limit_hits: limits ? (limits.hits.length > 0 ? limits.hits : null) : (action.limit_hits ?? null),
  };
  const requirement = requirementOfRequest(deps.policy, edited, deps.mcpIdentity, deps.now());
  // No edit makes a call the policy denies: refused before anything is written.
  if (requirement.deny) {
    log.info({ actor: actor.userId, source: requirement.deny.source }, 'edit refused: the policy denies the edited call');
    await refused('denied-by-policy');
    return { outcome: 'denied', action, args, denial: requirement.deny };
  }
  const editedRequest = { ...edited, policy_version: requirement.policyVersion };
  const mayApprove = await mayDecide(deps, editedRequest, actor, 'approve');
  // Where approving needs a reason, an edit (which gives none) does not count as the editor's
  // approval: they approve the edited request with a reason, like anyone else.
  const editorVerdict: { allowed: true } | { allowed: false; why: string; message: string } =
    mayApprove.allowed && requirement.requireReason
      ? { allowed: false, why: 'reason-required', message: 'Approving this request needs a reason: approve the edited request and say why.' }
      : mayApprove;
  const now = new Date().toISOString();
  const carried: Approval[] = [];
  const keep = requirement.keepApprovalsOnEdit === true && requirement.quorum > 1;
  if (keep) {
    for (const a of action.approvals) {
      if (a.userId === actor.userId) continue;
      if ((await mayDecide(deps, editedRequest, { userId: a.userId }, 'approve')).allowed) carried.push(a);
    }
  }
  const approvals = editorVerdict.allowed ? [...carried, { userId: actor.userId, at: now }] : carried;
  const quorum = Math.max(1, requirement.quorum);
  const proposedArgs = action.edit?.proposedArgs ?? action.args;
  const written = await recordEdit(deps.db, {
    fromActionId: action.id,
    fromFingerprint: action.fingerprint ?? '',
    // Carried approvals were worked out from this list: the edit lands only if it has not moved.
    ...(keep ? { fromApprovals: action.approvals } : {}),
    editor: actor.userId,
    args,
    fingerprint: fp,
    policyVersion: requirement.policyVersion,
    quorum,
    expiresInMs: requirement.expiresInMs,
    approvals,
    edit: { fromActionId: action.id, editor: actor.userId, proposedArgs },
    grantTtlMs: deps.grantTtlMs,
    ...(limits ? { recount: limits.recount } : {}),
  });
  if (written && 'limitsMoved' in written) {
    // Another call or edit took a limit over (or back under) between the preview and the write:
    // worked out again from the counters as they are now.
    log.info({ attempt }, 'cumulative limits moved while the edit was recorded; worked out again');
    if (attempt < MAX_EDIT_ATTEMPTS) return recordEditOf(root, deps, req, known.startAfter ? { startAfter: known.startAfter } : {}, attempt + 1);
    throw new AgentError('EDIT_CONTENDED', `the cumulative limits of ${action.tool_name} kept moving while request #${action.id} was edited; nothing was changed`, {
      runId: action.run_id,
      toolCallId: action.tool_call_id,
      actionId: action.id,
    });
  }
  if (!written) {
    const current = await refreshed(deps, action);
    // Carried approvals were read from a list another approval has since joined: counted again.
    if (current.outcome === 'approval-recorded' && keep && attempt < MAX_EDIT_ATTEMPTS) {
      return recordEditOf(root, deps, req, known.startAfter ? { startAfter: known.startAfter } : {}, attempt + 1);
    }
    await refused(current.outcome === 'expired' ? 'expired' : 'already-decided');
    return current.outcome === 'expired' ? current : { outcome: 'already-decided', action: current.outcome === 'not-found' ? action : current.action };
  }
  const { row, previous, leased } = written;
  log.info({ editor: actor.userId, toActionId: row.id, status: row.status }, 'request edited');
  if (row.status === 'approved') {
    return { outcome: 'approved', action: row, previous, stream: startContinuation(root, deps, row.run_id, row.root_run_id, leased, known.startAfter) };
  }
  if (!editorVerdict.allowed) return { outcome: 'pending', action: row, previous, why: editorVerdict.why, message: editorVerdict.message };
  return { outcome: 'approval-recorded', action: row, previous, approvals: row.approvals.map((a) => a.userId), quorum: row.quorum };
}
