import type { EditOutcome } from '../../agent/edit.js';
import type { Decision } from '../../agent/api-types.js';
import { requestOf, type Request } from '../../agent/request.js';
import { parseButtonValue } from '../kit/button-value.js';
import type { SubmittedView } from '../kit/submitted-payloads.js';
import { parseEditModal, editModal } from './edit-modal.js';
import { mention, whoDecides } from '../kit/mention.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { actorOf, findRequest, type Person, type SlackContext, type ThreadTarget, type Click } from '../context.js';
import { carryCard } from './card-carry.js';
import { cardStateKey, findCard, type CardRow } from '../card/cards.js';
import { refreshHomesFor } from '../card/inbox-refresh.js';
import { editFormOf } from '../card/edit-facts.js';
import { errorReference, failureText } from '../kit/error-reference.js';
import { tellUser } from '../kit/tell-user.js';
import { showCardUpdate } from '../card/show-card-update.js';
import { unreachable } from '../../unreachable.js';
import { truncate } from '../kit/limits.js';
import { oneLine } from '../kit/text-objects.js';
import { blockIdByIndex } from '../kit/form-inputs.js';
import type { ButtonAction } from '@slack/bolt';
import type { CheckedClick } from '../card/button-check.js';

/**
 * What Edit asks of the approval and routing features: passed in (app.ts), as edit/ imports
 * no other feature.
 */
export interface EditDeps {
  /** Approve's checks before a form opens, asked for an edit: the request, or undefined once the clicker was told why not. */
  checkedBeforeModal(ctx: SlackContext, click: Click | undefined, action: ButtonAction): Promise<CheckedClick | undefined>;
  /** A decision shown as Approve shows it: the card, the thread, the run going on (or the refusal, to the person). */
  showDecision(ctx: SlackContext, decision: Decision, at: ThreadTarget & Person, card?: CardRow): Promise<void>;
  /** An edited request that still waits: copies of its card for approvers it newly needs. */
  routeEdited(ctx: SlackContext, action: Request, card: CardRow | undefined): Promise<void>;
}

type EditSubmission =
  | { kind: 'close' }
  | { kind: 'errors'; errors: Record<string, string> }
  | { kind: 'edit'; row: Request; args: Record<string, unknown>; fingerprintPrefix: string };

/**
 * Reads the Edit modal's submission into typed arguments and checks them against the tool's
 * input schema; a wrong value is shown beside its field before the modal closes. Who may edit,
 * and whether the request is still as the editor saw it, is decided when the edit is recorded.
 */
export async function checkEditSubmission(ctx: SlackContext, view: SubmittedView, user: string): Promise<EditSubmission> {
  const meta = parseButtonValue(view.private_metadata);
  if (!meta?.fingerprintPrefix) {
    ctx.logger.warn({ user }, 'edit modal submitted with metadata that is not ours');
    return { kind: 'close' };
  }
  let row: Request | undefined;
  try {
    row = await findRequest(ctx, meta.actionId);
  } catch (error) {
    ctx.logger.error({ err: error, user, ref: errorReference() }, 'edit: request could not be loaded');
    return { kind: 'close' };
  }
  const form = row ? editFormOf(ctx.agent, row) : undefined;
  if (!row || !form) {
    ctx.logger.warn({ user, actionId: meta.actionId }, 'edit submitted for a request that cannot be edited');
    return { kind: 'close' };
  }
  const parsed = parseEditModal(form, view.state.values, ctx.agent.toolOf(row)?.inputSchema);
  if (!parsed.ok) return { kind: 'errors', errors: parsed.errors };
  const denied = deniedEdit(ctx, form, row, parsed.content);
  if (denied) return { kind: 'errors', errors: denied };
  return { kind: 'edit', row, args: parsed.content, fingerprintPrefix: meta.fingerprintPrefix };
}

/**
 * An edit the policy would deny (a rule, the tool's entry, a freeze) is refused in the modal,
 * beside the first argument it changed, before anything is written; recording the edit checks
 * it again (its cumulative limits counted with the edited arguments) and says so if it denies.
 */
function deniedEdit(ctx: SlackContext, form: NonNullable<ReturnType<typeof editFormOf>>, row: Request, args: Record<string, unknown>): Record<string, string> | undefined {
  const denial = ctx.agent.requirementOf({ ...row, args }).deny;
  if (!denial) return undefined;
  const before = row.args !== null && typeof row.args === 'object' ? (row.args as Record<string, unknown>) : {};
  const changed = Math.max(0, form.fields.findIndex((f) => JSON.stringify(args[f.name]) !== JSON.stringify(before[f.name])));
  const block = blockIdByIndex(form.fields[changed]!, changed);
  const reason = truncate(oneLine(denial.reason), 300);
  return { [block]: `The approval policy denies this call with these arguments: ${reason}${/[.!?…]$/.test(reason) ? '' : '.'} Change them, or close to leave the request as it is.` };
}

interface RecordedEdit {
  outcome: EditOutcome;
  /** The edited request, as the editor submitted it. */
  row: Request;
}

/** Records the edit (see Agent.editToolCall); the run's work waits for `startAfter`. */
export async function recordEditSubmission(
  ctx: SlackContext,
  submission: Extract<EditSubmission, { kind: 'edit' }>,
  who: Person,
  startAfter: Promise<void>,
): Promise<RecordedEdit> {
  const outcome = await ctx.agent.editToolCall(
    { actionId: submission.row.id, fingerprint: submission.fingerprintPrefix, actor: actorOf(who), args: submission.args },
    { action: submission.row, startAfter },
  );
  ctx.logger.info({ actionId: submission.row.id, user: who.user, outcome: outcome.outcome, ...('action' in outcome && outcome.action ? { toActionId: outcome.action.id } : {}) }, 'edit submitted');
  return { outcome, row: submission.row };
}

/**
 * Shows a recorded edit beside its card: the card now tracks the new request (its buttons, its
 * "edited by" line), the editor hears what their edit did, the thread hears who must still
 * approve, and the run goes on when the edit approved it.
 */
export async function showEditSubmission(ctx: SlackContext, deps: EditDeps, who: Person, recorded: RecordedEdit): Promise<void> {
  const user = who.user;
  const { outcome, row } = recorded;
  const card = await findCard(ctx.slackDb, row.id);
  const at = { ...who, ...(card ? { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) } : { channel: user }) };
  switch (outcome.outcome) {
    case 'unchanged':
      return deps.showDecision(ctx, outcome.decision, at, card);
    case 'not-allowed':
    case 'already-decided':
    case 'expired':
    case 'policy-changed':
    case 'fingerprint-mismatch':
    case 'not-found':
      return deps.showDecision(ctx, outcome as Decision, at, card);
    case 'invalid-args':
      return tellUser(ctx, at, `The edited arguments were refused: ${escapeMrkdwn(outcome.issues.map((i) => `${i.path || 'input'}: ${i.message}`).join('; '))}. Nothing was changed.`);
    case 'not-editable':
      return tellUser(ctx, at, 'The arguments of this request cannot be edited. Nothing was changed.');
    // Refused in the modal already (checkEditSubmission), unless a cumulative limit counted with the edit denies it.
    case 'denied':
      return tellUser(ctx, at, `The approval policy denies this call with the edited arguments: ${escapeMrkdwn(outcome.denial.reason)}. Nothing was changed.`);
    case 'approved':
    case 'approval-recorded':
    case 'pending': {
      const previous = requestOf(outcome.previous);
      const request = requestOf(outcome.action);
      const moved = await moveCard(ctx, previous, request);
      refreshHomesFor(ctx, previous);
      if (outcome.outcome === 'approved') {
        return deps.showDecision(ctx, { outcome: 'approved', action: outcome.action, ...(outcome.stream ? { stream: outcome.stream } : {}) }, at, moved);
      }
      if (outcome.outcome === 'approval-recorded') {
        await deps.showDecision(ctx, { outcome: 'approval-recorded', action: outcome.action, approvals: outcome.approvals, quorum: outcome.quorum, alreadyCounted: false }, at, moved);
        return deps.routeEdited(ctx, request, moved);
      }
      await showCardUpdate(ctx, request.id);
      refreshHomesFor(ctx, request);
      await tellUser(ctx, at, `Your edit is saved as request #${request.id}, but it does not count as your approval: ${escapeMrkdwn(outcome.message)}`);
      await showStillNeeded(ctx, request, user, moved ?? card);
      return deps.routeEdited(ctx, request, moved);
    }
    default:
      return unreachable(outcome, 'edit outcome');
  }
}

/** The card goes on to show the new request; where it is now (undefined when the request had none). */
async function moveCard(ctx: SlackContext, previous: Request, next: Request): Promise<CardRow | undefined> {
  try {
    return (await carryCard(ctx.slackDb, previous.id, cardStateKey(previous, false), next.id)) ?? (await findCard(ctx.slackDb, next.id));
  } catch (error) {
    // The sweep posts a card for a pending request without one; an approved one goes on regardless.
    ctx.logger.warn({ err: error, from: previous.id, to: next.id }, 'card could not be moved to the edited request');
    return undefined;
  }
}

/** Tells the thread who must approve the edited request, as a new request's card would. */
async function showStillNeeded(ctx: SlackContext, action: Request, editor: string, card: CardRow | undefined): Promise<void> {
  if (!card) return;
  const { approvers, requirement } = ctx.agent.viewRequest(action);
  const who = approvers.length === 0 ? 'any approver' : whoDecides(approvers, requirement.reach.notify, { conjunction: 'or', maxChars: 1000 });
  const target: ThreadTarget = { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) };
  try {
    await ctx.client.chat.postMessage({
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      text: `:pencil2: ${mention(editor)} edited the arguments of request #${action.id}: it now waits for ${who}.`,
    });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: action.id }, 'edit notice could not be posted');
  }
}

/** Tells the editor, beside the card, that recording or showing the edit failed (with the log reference). */
export function tellEditFailure(ctx: SlackContext, actionId: number, user: string): (ref: string) => Promise<void> {
  return async (ref) => {
    const card = await findCard(ctx.slackDb, actionId);
    if (card) await tellUser(ctx, { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}), user }, failureText(ref));
  };
}

/**
 * Edit: the clicker must be someone who may approve the request as it stands (asked of the
 * Agent, as Approve is); then a modal of the tool's input schema opens, prefilled with the
 * request's arguments as stored (read here by the button's request id, never from the click).
 */
export async function showEditForm(ctx: SlackContext, deps: EditDeps, click: Click | undefined, action: ButtonAction): Promise<void> {
  const checked = await deps.checkedBeforeModal(ctx, click, action);
  if (!checked) return;
  const { click: at, row } = checked;
  const form = editFormOf(ctx.agent, row);
  if (!form) return tellUser(ctx, at, 'The arguments of this request cannot be edited here. Nothing was changed.');
  if (!at.triggerId) return tellUser(ctx, at, 'Slack did not let me open the form; try again. Nothing was changed.');
  try {
    await ctx.client.views.open({
      trigger_id: at.triggerId,
      view: editModal({ actionId: row.id, fingerprint: row.fingerprint, toolName: row.toolName, form, current: row.args }),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: row.id }, 'edit modal could not open');
    await tellUser(ctx, at, 'The edit form could not open; try again. Nothing was changed.');
  }
}
