import type { KnownBlock } from '@slack/types';
import type { Agent } from '../../agent/agent.js';
import type { Tool } from '../../agent/tool.js';
import { resumeSchemaOf, confirmationOf, formOfZod, type Form, formOfJsonSchema } from '../kit/form-fields.js';
import type { RequestView } from '../../agent/request-view.js';
import type { Request } from '../../agent/request.js';
import type { CardKind } from '../kit/action-ids.js';
import { approvalCard } from './approval-card.js';
import type { ApprovalCardState, QuestionCardState, SuspensionCardState, CardBound, CardUnattended } from './card-types.js';
import { questionCard, suspensionCard, summariseAnswer } from './answer-card.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { truncate, LIMITS } from '../kit/limits.js';
import { fieldText } from '../kit/form-inputs.js';
import { formLabel, describeArgs, escapeOwnDescription, labelOf, type CallInWords } from '../kit/describe-args.js';
import { unreachable } from '../../unreachable.js';
import { whoDecides, describeRoute } from '../kit/mention.js';
import { elicitationCard, type ElicitationCardState } from './elicitation-card.js';
import { elicitationAnswerSchema, isElicitationPayload } from '../../mcp/elicitation-payload.js';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { CallPresentation } from '../../agent/describe-call.js';
import { formatArgValue } from '../kit/format-arg-value.js';
import type { Requirement } from '../../approvals/requirement-for.js';
import type { RequestBindingView } from '../../agent/request-binding.js';
import { argsDiff } from '../../approvals/args-diff.js';
import { editDiffText, jsonValue, type EditKeyLabel, type EditValueFormatter } from '../kit/edit-diff-text.js';

export interface RenderedCard {
  kind: CardKind;
  blocks: KnownBlock[];
  /** The notification text Slack shows where blocks cannot be (already escaped). */
  text: string;
}

/**
 * A card is always drawn from the pending action row, never from what a click
 * or a stream said: the row is the truth every instance shares, so posting,
 * updating after a decision and updating after a restart draw the same card.
 */
export function renderCard(
  agent: Agent,
  action: Request,
  facts: { blocked: boolean; blockedReason?: string; now?: Date; unreachableQuorum?: { eligible: number } | undefined; routedTo?: string; view?: RequestView },
): RenderedCard {
  const kind = cardKindOf(agent, action);
  const now = facts.now ?? new Date();
  if (kind === 'approval') {
    // One view of the request, one evaluation of the policy: everything the card says comes from it.
    // The policy at the runtime's clock (its freezes), unless the draw is for another moment.
    const view = facts.view ?? agent.viewRequest(action, facts.now ? { now: facts.now } : {});
    const { requirement, approvers } = view;
    const notify = requirement.reach.notify;
    const routedTo = facts.routedTo ?? describeRoute(requirement.reach.route);
    const call = describedCall(action.toolName, action.args, view.description);
    const unused = view.request.rememberedUnused;
    const bound = boundOf(view.binding, requirement);
    const unattended = unattendedOf(action, agent.id);
    return {
      kind,
      blocks: approvalCard({
        actionId: action.id,
        runId: action.runId,
        toolCallId: action.toolCallId,
        toolName: action.toolName,
        args: action.args,
        title: call.title,
        fields: call.fields,
        risk: call.risk,
        requireReason: call.requireReason,
        path: action.path,
        requester: action.requester,
        approvers,
        notify,
        ...(routedTo !== undefined ? { routedTo } : {}),
        quorum: action.quorum,
        ...(requirement.limitHits ? { overLimit: requirement.limitHits } : {}),
        ...(unused ? { rememberedUnused: unused } : {}),
        approvals: action.approvals.map((a) => a.userId),
        expiresAt: action.expiresAt ? new Date(action.expiresAt) : new Date(Number.NaN),
        fingerprint: action.fingerprint,
        policyVersion: action.policyVersion,
        ...mcpOf(view.tool),
        unreachableQuorum: facts.unreachableQuorum,
        ...editFacts(view, action, editShown(view.description.inputSchema, action.args)),
        ...(view.rememberFor !== undefined ? { rememberFor: view.rememberFor } : {}),
        ...(bound ? { bound } : {}),
        ...(unattended ? { unattended } : {}),
        state: approvalState(action, facts.blocked, now, facts.blockedReason),
      }),
      text: approvalText(action, call.title, approvers, notify),
    };
  }
  if (kind === 'question') {
    const q = questionOf(agent, action)!;
    return {
      kind,
      blocks: questionCard({
        actionId: action.id,
        question: q.question,
        options: q.options,
        selectionMode: q.selectionMode,
        askedOf: action.requester,
        state: questionState(action),
      }),
      text: escapeMrkdwn(truncate(`Question: ${q.question}`, 300)),
    };
  }
  if (isElicitationPayload(action.suspendPayload)) {
    return {
      kind,
      blocks: elicitationCard({
        actionId: action.id,
        toolName: action.toolName,
        payload: action.suspendPayload,
        ...(action.requester ? { askedOf: action.requester } : {}),
        state: elicitationState(action),
      }),
      text: escapeMrkdwn(truncate(`Input needed: ${action.toolName} (request #${action.id})`, 300)),
    };
  }
  const schema = resumeSchemaOf(agent, action);
  const form = formOfZod(schema);
  return {
    kind,
    blocks: suspensionCard({
      actionId: action.id,
      toolName: action.toolName,
      path: action.path,
      payload: action.suspendPayload,
      respondable: form !== undefined,
      confirmation: confirmationOf(schema) !== undefined,
      autoResume: agent.defaultOptions.autoResumeSuspendedTools ?? false,
      state: suspensionState(action, form),
    }),
    text: escapeMrkdwn(truncate(`Input needed: ${action.toolName} (request #${action.id})`, 300)),
  };
}

/**
 * The notification text: while the request waits, it mentions who can decide (unless the policy
 * says `notify: none`), the one place the bot pings people on purpose; the tool name is escaped.
 */
function approvalText(action: Request, title: string, approvers: readonly string[], notify: 'mentions' | 'none'): string {
  const what = escapeMrkdwn(truncate(`Approval needed: ${title} (request #${action.id})`, 300));
  if (action.status !== 'pending' || notify === 'none' || approvers.length === 0) return what;
  return `${what} for ${whoDecides(approvers, notify, { maxChars: 2000 })}`;
}

/** An approval card's state from its row; `blockedReason`: why its approved call was stopped, in words (see blockedReasonText). */
export function approvalState(a: Request, blocked: boolean, now: Date, blockedReason?: string): ApprovalCardState {
  const at = a.decidedAt ? new Date(a.decidedAt) : now;
  switch (a.status) {
    case 'pending':
      // Past its time but not yet swept: nobody can approve it any more, so do not offer buttons.
      return a.expiresAt && new Date(a.expiresAt).getTime() <= now.getTime() ? { kind: 'expired' } : { kind: 'pending' };
    case 'approved':
      if (blocked) return blockedReason !== undefined ? { kind: 'blocked', reason: blockedReason } : { kind: 'blocked' };
      return { kind: 'approved', by: a.approvals.length > 0 ? a.approvals.map((v) => v.userId) : [a.decidedBy ?? 'unknown'], at, reasons: approvalReasons(a) };
    case 'declined':
      return { kind: 'declined', by: a.decidedBy ?? 'unknown', ...(a.reason ? { reason: a.reason } : {}), at };
    case 'expired':
      return { kind: 'expired' };
    case 'superseded':
      return { kind: 'superseded' };
    case 'edited':
      return { kind: 'edited', by: a.decidedBy ?? 'unknown' };
    case 'cancelled':
    case 'failed':
    case 'resumed':
    case 'resolved':
      return { kind: 'cancelled', ...(a.decidedBy ? { by: a.decidedBy } : {}) };
    default:
      return unreachable(a.status, 'request status');
  }
}

function questionState(a: Request): QuestionCardState {
  if (a.status === 'pending') return { kind: 'pending' };
  if (a.status === 'resumed') {
    const answer = Array.isArray(a.resumeData) ? a.resumeData.map(String) : typeof a.resumeData === 'string' ? a.resumeData : JSON.stringify(a.resumeData);
    return { kind: 'answered', by: a.decidedBy ?? 'unknown', answer };
  }
  return { kind: 'cancelled' };
}

function mcpOf(tool: Tool | undefined): { mcp?: { server: string; tool: string; readOnlyHint?: boolean } } {
  const mcp = tool?.mcp;
  return mcp ? { mcp: { server: mcp.server, tool: mcp.tool, ...(mcp.readOnlyHint !== undefined ? { readOnlyHint: mcp.readOnlyHint } : {}) } } : {};
}

function elicitationState(a: Request): ElicitationCardState {
  if (a.status === 'pending') return { kind: 'pending' };
  if (a.status === 'resumed') {
    const answered = elicitationAnswerSchema.safeParse(a.resumeData);
    return { kind: 'answered', by: a.decidedBy ?? 'unknown', action: answered.success ? answered.data.action : 'accept' };
  }
  return { kind: 'cancelled', ...(a.reason ? { reason: a.reason } : {}) };
}

/** The answer is read from the row (resume_data), so a card redrawn after a restart says the same. */
function suspensionState(a: Request, form: Form | undefined): SuspensionCardState {
  if (a.status === 'pending') return { kind: 'pending' };
  if (a.status === 'resumed') {
    // Each answer labelled as its field was in the form (a key the form did not have, as a form would label it).
    const labelOf = (key: string) => {
      const entry = form?.fields.find((f) => f.name === key);
      return entry ? fieldText(entry).label : formLabel(key, undefined).label;
    };
    return { kind: 'answered', by: a.decidedBy ?? 'unknown', answer: summariseAnswer(a.resumeData, labelOf) };
  }
  return { kind: 'cancelled' };
}

interface CallOnCard extends CallInWords {
  risk: 'low' | 'high';
  requireReason: boolean;
}

/**
 * How an approval card describes its call: the tool's own describe() when it has a working one
 * (its strings escaped, since they carry what the model wrote), else the arguments described
 * from the tool's input schema, from the presentation the Agent worked out (a RequestView's
 * `description`, or `agent.describeCall`), which finds the tool along the request's path.
 */
export function describedCall(toolName: string, args: unknown, presented: CallPresentation): CallOnCard {
  const description = presented.description ? escapeOwnDescription(presented.description) : describeArgs(toolName, args, presented.inputSchema);
  return { ...description, own: presented.description !== undefined, risk: presented.risk, requireReason: presented.requireReason };
}

/** What each approver said with their approval, by user id. */
function approvalReasons(action: Pick<Request, 'approvals'>): Record<string, string> {
  const reasons: Record<string, string> = {};
  for (const vote of action.approvals) if (typeof vote.reason === 'string' && vote.reason.trim()) reasons[vote.userId] = vote.reason;
  return reasons;
}

/**
 * How an edit's changes read on the card: each argument named and its values shown as the card's
 * fields show them ("Amount $1,500.50 → $1,000.00"), from the tool's input schema (a RequestView's
 * `description.inputSchema`).
 */
export function editShown(schema: JSONSchema7 | undefined, args: unknown): { format: EditValueFormatter; label: EditKeyLabel } {
  const properties = schema?.properties ?? {};
  const propOf = (key: string): JSONSchema7 | undefined => {
    const prop = Object.hasOwn(properties, key) ? properties[key] : undefined;
    return typeof prop === 'object' && prop !== null ? prop : undefined;
  };
  const currency = args !== null && typeof args === 'object' ? (args as Record<string, unknown>).currency : undefined;
  return {
    format: (value, key) => formatArgValue(value, { key, schema: propOf(key), currency, maxChars: 200 }),
    label: (key) => labelOf(key, propOf(key)),
  };
}

/**
 * What a card shows of a request's binding (a RequestView's: the stated reason, the preview, why
 * it was asked again, a tool changed meanwhile) and of its requirement now (the change freezes in
 * force, a deny the policy now has for it). Undefined when there is none of it, as for most requests.
 */
export function boundOf(binding: RequestBindingView, { freezes, deny }: Pick<Requirement, 'freezes' | 'deny'>): CardBound | undefined {
  const bound: CardBound = {
    ...(binding.statedReason !== undefined ? { statedReason: binding.statedReason } : {}),
    ...(binding.preview ? { preview: binding.preview } : {}),
    ...(binding.askedAgain ? { askedAgain: binding.askedAgain } : {}),
    ...(binding.toolChanged?.length ? { toolChanged: binding.toolChanged } : {}),
    ...(freezes?.length ? { freezes: freezes.map((f) => ({ name: f.name, ...(f.until ? { until: new Date(f.until) } : {}) })) } : {}),
    ...(deny ? { deniedNow: deny.reason } : {}),
  };
  return Object.keys(bound).length > 0 ? bound : undefined;
}

/** Who asked for a request nobody requested (no requester): the agent whose run it is, and the run's caller label. */
export function unattendedOf(action: Pick<Request, 'requester' | 'path' | 'caller'>, agentId: string): CardUnattended | undefined {
  if (action.requester) return undefined;
  return { agent: action.path?.[0] ?? agentId, ...(action.caller ? { caller: action.caller } : {}) };
}

/** The tool a pending action is about, found through the delegation path. */
export function toolOf(agent: Agent, action: Request): Tool | undefined {
  return agent.toolOf(action);
}

export interface AskUserQuestion {
  question: string;
  options?: Array<{ label: string; description?: string }>;
  selectionMode?: 'single_select' | 'multi_select';
}

/** The askUser payload, when this suspension is askUser's question. */
export function questionOf(agent: Agent, action: Request): AskUserQuestion | undefined {
  if (action.kind !== 'suspension' || toolOf(agent, action)?.id !== 'ask_user') return undefined;
  const payload = action.suspendPayload as Partial<AskUserQuestion> | null;
  if (!payload || typeof payload.question !== 'string') return undefined;
  const options = Array.isArray(payload.options)
    ? payload.options.filter((o): o is { label: string; description?: string } => typeof o?.label === 'string')
    : undefined;
  return {
    question: payload.question,
    ...(options && options.length > 0 ? { options, selectionMode: payload.selectionMode ?? 'single_select' } : {}),
  };
}

export function cardKindOf(agent: Agent, action: Request): CardKind {
  if (action.kind === 'approval') return 'approval';
  return questionOf(agent, action) ? 'question' : 'suspension';
}

/** One block for the Edit modal's introduction; a form with more fields than fit is not offered for editing. */
export const EDIT_MAX_FIELDS = LIMITS.modalBlocks - 1;

/**
 * The form an editor fills in, from a request's edit schema (a RequestView's `editSchema`, or
 * `Agent.editSchemaOf`): undefined when the request cannot be edited (no schema, one of another
 * shape, or more fields than fit one modal).
 */
function editFormOfSchema(schema: JSONSchema7 | undefined): Form | undefined {
  const form = formOfJsonSchema(schema);
  return form && form.fields.length <= EDIT_MAX_FIELDS ? form : undefined;
}

/**
 * The form an editor of this request fills in: its tool's input schema (from the Agent) as
 * fields, when it is a flat object of strings, numbers, integers, booleans and enums that fits
 * one modal; undefined when the request cannot be edited (policy `allowEdit: false`, a tool of
 * another shape, or one the code no longer has).
 */
export function editFormOf(agent: Agent, action: Request): Form | undefined {
  return editFormOfSchema(agent.editSchemaOf(action));
}

/** What an approval card shows about editing (from the request's view): the Edit button while pending, and the "edited by" line. */
export function editFacts(
  view: Pick<RequestView, 'editSchema'>,
  action: Request,
  shown: { format: EditValueFormatter; label?: EditKeyLabel } = { format: jsonValue },
): { editable?: true; editedLine?: string } {
  const editable = action.status === 'pending' && editFormOfSchema(view.editSchema) !== undefined;
  const edit = action.edit;
  return {
    ...(editable ? { editable: true as const } : {}),
    ...(edit ? { editedLine: editDiffText(edit.editor, argsDiff(edit.proposedArgs, action.args), shown.format, 2000, shown.label) } : {}),
  };
}
