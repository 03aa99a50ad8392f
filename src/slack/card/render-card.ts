import type { KnownBlock } from '@slack/types';
import type { Agent } from '../../agent/agent.js';
import { resumeSchemaFor } from '../../agent/tool.js';
import type { PendingAction } from '../../db/rows.js';
import type { CardKind } from '../kit/action-ids.js';
import { approvalCard } from './approval-card.js';
import type { ApprovalCardState, QuestionCardState, SuspensionCardState } from './card-types.js';
import { questionCard, suspensionCard, summariseAnswer } from '../answer/answer-card.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { truncate } from '../kit/limits.js';
import { confirmationOf, formOfZod, type Form } from '../kit/form-fields.js';
import { fieldText } from '../kit/form-inputs.js';
import { formLabel } from '../kit/describe-args.js';
import { cardKindOf, questionOf, toolOf } from './card-subject.js';
import { unreachable } from '../../unreachable.js';
import { approversAt } from '../../approvals/approvers-at.js';
import { whoDecides, describeRoute } from '../kit/who-decides.js';
import { elicitationCard, type ElicitationCardState } from '../answer/elicitation-card.js';
import { approvalReasons, callOnCard, editShownOnCard } from './card-description.js';
import { elicitationAnswerSchema, isElicitationPayload } from '../../mcp/elicitation-payload.js';
import { editFacts } from '../edit/edit-form.js';
import { rememberedUnusedFromRow } from '../../db/remembered-grants.js';
import { boundOnCard, unattendedOf } from './card-bound.js';
import { expiredGrant, noMatchingGrant } from '../../db/grants.js';

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
  action: PendingAction,
  facts: { blocked: boolean; blockedReason?: string; now?: Date; unreachableQuorum?: { eligible: number } | undefined; routedTo?: string },
): RenderedCard {
  const kind = cardKindOf(agent, action);
  const now = facts.now ?? new Date();
  if (kind === 'approval') {
    const requirement = agent.requirementOf(action);
    const approvers = approversAt(requirement, new Date(action.created_at), now);
    const notify = requirement.reach.notify;
    const routedTo = facts.routedTo ?? describeRoute(requirement.reach.route);
    const rememberFor = action.status === 'pending' ? agent.rememberForOf(action) : undefined;
    const call = callOnCard(agent, action);
    const unused = rememberedUnusedFromRow(action.remembered_unused);
    const bound = boundOnCard(agent, action, requirement);
    const unattended = unattendedOf(action, agent.id);
    return {
      kind,
      blocks: approvalCard({
        actionId: action.id,
        runId: action.run_id,
        toolCallId: action.tool_call_id,
        toolName: action.tool_name,
        args: action.args,
        title: call.title,
        fields: call.fields,
        risk: call.risk,
        requireReason: call.requireReason,
        path: action.path ?? [],
        requester: action.requester ?? undefined,
        approvers,
        notify,
        ...(routedTo !== undefined ? { routedTo } : {}),
        quorum: action.quorum,
        ...(requirement.limitHits ? { overLimit: requirement.limitHits } : {}),
        ...(unused ? { rememberedUnused: { ...unused, expiresAt: new Date(unused.expiresAt) } } : {}),
        approvals: action.approvals.map((a) => a.userId),
        expiresAt: action.expires_at ? new Date(action.expires_at) : new Date(Number.NaN),
        fingerprint: action.fingerprint ?? '',
        policyVersion: action.policy_version ?? undefined,
        ...mcpOf(agent, action),
        unreachableQuorum: facts.unreachableQuorum,
        ...editFacts(agent, action, editShownOnCard(agent, action)),
        ...(rememberFor !== undefined ? { rememberFor } : {}),
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
        askedOf: action.requester ?? undefined,
        state: questionState(action),
      }),
      text: escapeMrkdwn(truncate(`Question: ${q.question}`, 300)),
    };
  }
  if (isElicitationPayload(action.suspend_payload)) {
    return {
      kind,
      blocks: elicitationCard({
        actionId: action.id,
        toolName: action.tool_name,
        payload: action.suspend_payload,
        ...(action.requester ? { askedOf: action.requester } : {}),
        state: elicitationState(action),
      }),
      text: escapeMrkdwn(truncate(`Input needed: ${action.tool_name} (request #${action.id})`, 300)),
    };
  }
  const tool = toolOf(agent, action);
  const schema = tool ? resumeSchemaFor(tool, action.args) : undefined;
  const form = formOfZod(schema);
  return {
    kind,
    blocks: suspensionCard({
      actionId: action.id,
      toolName: action.tool_name,
      path: action.path ?? [],
      payload: action.suspend_payload,
      respondable: form !== undefined,
      confirmation: confirmationOf(schema) !== undefined,
      autoResume: agent.defaultOptions.autoResumeSuspendedTools ?? false,
      state: suspensionState(action, form),
    }),
    text: escapeMrkdwn(truncate(`Input needed: ${action.tool_name} (request #${action.id})`, 300)),
  };
}

/**
 * The notification text: while the request waits, it mentions who can decide (unless the policy
 * says `notify: none`), the one place the bot pings people on purpose; the tool name is escaped.
 */
function approvalText(action: PendingAction, title: string, approvers: readonly string[], notify: 'mentions' | 'none'): string {
  const what = escapeMrkdwn(truncate(`Approval needed: ${title} (request #${action.id})`, 300));
  if (action.status !== 'pending' || notify === 'none' || approvers.length === 0) return what;
  return `${what} for ${whoDecides(approvers, notify, { maxChars: 2000 })}`;
}

/** The reasons the runtime writes on a `blocked` audit event besides a grant that does not match, in words. */
const blockedWords: Record<string, string> = {
  'preview failed': 'its preview failed right before it was to run, so the state it was approved for could not be checked',
  'tool definition unreadable': "its MCP server's definition of the tool could not be checked right before it ran",
  'tool gone': 'its MCP server no longer offers the tool',
  'tool definition changed': 'its MCP server changed the tool after it was approved, and the arguments no longer fit it',
  [expiredGrant]: 'the approval expired before the call ran; it was asked again',
};

/**
 * Why an approved call was stopped, in words (plain text), from its `blocked` audit event's
 * reason: undefined for arguments that no longer match (the card's usual words); a reason of a
 * `beforeToolCall` hook's, or any other, quoted.
 */
export function blockedReasonText(reason: string | undefined): string | undefined {
  if (reason === undefined || reason === noMatchingGrant) return undefined;
  return Object.hasOwn(blockedWords, reason) ? blockedWords[reason] : `a check right before it ran refused it (${reason})`;
}

export function approvalState(a: PendingAction, blocked: boolean, now: Date, blockedReason?: string): ApprovalCardState {
  const at = a.decided_at ? new Date(a.decided_at) : now;
  switch (a.status) {
    case 'pending':
      // Past its time but not yet swept: nobody can approve it any more, so do not offer buttons.
      return a.expires_at && new Date(a.expires_at).getTime() <= now.getTime() ? { kind: 'expired' } : { kind: 'pending' };
    case 'approved':
      if (blocked) {
        const reason = blockedReasonText(blockedReason);
        return reason !== undefined ? { kind: 'blocked', reason } : { kind: 'blocked' };
      }
      return { kind: 'approved', by: a.approvals.length > 0 ? a.approvals.map((v) => v.userId) : [a.decided_by ?? 'unknown'], at, reasons: approvalReasons(a) };
    case 'declined':
      return { kind: 'declined', by: a.decided_by ?? 'unknown', ...(a.reason ? { reason: a.reason } : {}), at };
    case 'expired':
      return { kind: 'expired' };
    case 'superseded':
      return { kind: 'superseded' };
    case 'edited':
      return { kind: 'edited', by: a.decided_by ?? 'unknown' };
    case 'cancelled':
    case 'failed':
    case 'resumed':
    case 'resolved':
      return { kind: 'cancelled', ...(a.decided_by ? { by: a.decided_by } : {}) };
    default:
      return unreachable(a.status, 'request status');
  }
}

function questionState(a: PendingAction): QuestionCardState {
  if (a.status === 'pending') return { kind: 'pending' };
  if (a.status === 'resumed') {
    const answer = Array.isArray(a.resume_data) ? a.resume_data.map(String) : typeof a.resume_data === 'string' ? a.resume_data : JSON.stringify(a.resume_data);
    return { kind: 'answered', by: a.decided_by ?? 'unknown', answer };
  }
  return { kind: 'cancelled' };
}

function mcpOf(agent: Agent, action: PendingAction): { mcp?: { server: string; tool: string; readOnlyHint?: boolean } } {
  const mcp = toolOf(agent, action)?.mcp;
  return mcp ? { mcp: { server: mcp.server, tool: mcp.tool, ...(mcp.readOnlyHint !== undefined ? { readOnlyHint: mcp.readOnlyHint } : {}) } } : {};
}

function elicitationState(a: PendingAction): ElicitationCardState {
  if (a.status === 'pending') return { kind: 'pending' };
  if (a.status === 'resumed') {
    const answered = elicitationAnswerSchema.safeParse(a.resume_data);
    return { kind: 'answered', by: a.decided_by ?? 'unknown', action: answered.success ? answered.data.action : 'accept' };
  }
  return { kind: 'cancelled', ...(a.reason ? { reason: a.reason } : {}) };
}

/** The answer is read from the row (resume_data), so a card redrawn after a restart says the same. */
function suspensionState(a: PendingAction, form: Form | undefined): SuspensionCardState {
  if (a.status === 'pending') return { kind: 'pending' };
  if (a.status === 'resumed') {
    // Each answer labelled as its field was in the form (a key the form did not have, as a form would label it).
    const labelOf = (key: string) => {
      const entry = form?.fields.find((f) => f.name === key);
      return entry ? fieldText(entry).label : formLabel(key, undefined).label;
    };
    return { kind: 'answered', by: a.decided_by ?? 'unknown', answer: summariseAnswer(a.resume_data, labelOf) };
  }
  return { kind: 'cancelled' };
}

