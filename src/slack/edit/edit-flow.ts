import type { EditOutcome } from '../../agent/edit.js';
import type { Decision } from '../../agent/api-types.js';
import { requestOf, type Request } from '../../agent/request.js';
import { parseButtonValue, ACTION_IDS, CALLBACK_IDS } from '../kit/action-ids.js';
import type { SubmittedView } from '../kit/submitted-payloads.js';
import { parseEditModal, editModal } from './edit-modal.js';
import { mention, whoDecides } from '../kit/mention.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { actorOf, findRequest, type Person, type SlackContext, type ThreadTarget, type Click, personOf, clickOf, tellUser } from '../context.js';
import { againOnDeadlock, cardStateKey, findCard, type CardRow } from '../card/cards.js';
import { showCardUpdate } from '../card/show-card-update.js';
import { refreshHomesFor } from '../card/lifecycle.js';
import { editFormOf } from '../card/render-card.js';
import { errorReference, failureText } from '../kit/error-reference.js';
import { unreachable } from '../../unreachable.js';
import { truncate, oneLine } from '../kit/limits.js';
import { blockIdByIndex } from '../kit/form-inputs.js';
import type { ButtonAction, BlockAction } from '@slack/bolt';
import type { CheckedClick } from '../card/button-check.js';
import { tellClicker } from '../card/button-check.js';
import type { InteractionRoutes } from '../kit/action-ids.js';
import { submissionThenAck, type CheckedSubmission } from '../ack.js';
import { sql, type RawBuilder } from 'kysely';
import type { SlackDb } from '../context.js';

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

type EditSubmission = CheckedSubmission<{ kind: 'edit'; row: Request; args: Record<string, unknown>; fingerprintPrefix: string }>;

/**
 * Reads the Edit modal's submission into typed arguments and checks them against the tool's
 * input schema; a wrong value is shown beside its field before the modal closes. Who may edit,
 * and whether the request is still as the editor saw it, is decided when the edit is recorded.
 */
async function checkEditSubmission(ctx: SlackContext, view: SubmittedView, user: string): Promise<EditSubmission> {
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
async function recordEditSubmission(
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
async function showEditSubmission(ctx: SlackContext, deps: EditDeps, who: Person, recorded: RecordedEdit): Promise<void> {
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
function tellEditFailure(ctx: SlackContext, actionId: number, user: string): (ref: string) => Promise<void> {
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
async function showEditForm(ctx: SlackContext, deps: EditDeps, click: Click | undefined, action: ButtonAction): Promise<void> {
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

/**
 * Edit opens a modal of the tool's arguments (after checking the clicker may approve); its
 * submission is checked (errors shown beside the fields before the modal closes), recorded, then
 * acknowledged, as an Approve click is.
 */
export function registerEditActions(routes: InteractionRoutes, ctx: SlackContext, deps: EditDeps): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.edit, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('edit-open', () => showEditForm(ctx, deps, clickOf(body), action), tellClicker(ctx, clickOf(body)));
  });
  routes.view(CALLBACK_IDS.editModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    await submissionThenAck(ctx, ack, await checkEditSubmission(ctx, view, user), (submission) => ({
      name: 'edit-submit',
      record: (startAfter) => recordEditSubmission(ctx, submission, personOf(body), startAfter),
      show: (recorded) => showEditSubmission(ctx, deps, personOf(body), recorded),
      onError: tellEditFailure(ctx, submission.row.id, user),
    }));
  });
}

/**
 * After an edit, the card (and its routed copies) goes on showing the request that replaced the
 * edited one: the new request gets the card's place, and the old row is marked settled with the
 * key it ends in, so no sweep ever draws the old request over the new one. On a batch card the
 * new request takes the edited one's place in the batch (`batch`, in the row of every request of
 * the batch's calls, those earlier edits replaced included), so every redraw, click, repair and
 * restart finds the batch with the new request in it. Returns the new request's card; undefined when the old one had none (or the new
 * one already has a card of its own, which `findCard` then gives).
 *
 * One transaction: the batch's rows are locked first (in id order, so two edits of one batch
 * cannot deadlock), and the carry runs after the lock, on what the other edit committed: two
 * members edited at once each take their place, neither undoes the other's. Ended by a deadlock
 * (see againOnDeadlock), it is run again, and then finds and locks the other edit's row too.
 */
async function carryCard(db: SlackDb, fromActionId: number, fromKey: string, toActionId: number): Promise<CardRow | undefined> {
  return againOnDeadlock(() => db.transaction().execute(async (tx) => {
    await sql`
      SELECT c.action_id FROM slack_cards c
      WHERE c.action_id = ${fromActionId}
         OR c.action_id IN (${requestsOfBatch(sql`(SELECT o.batch FROM slack_cards o WHERE o.action_id = ${fromActionId})`)})
      ORDER BY c.action_id
      FOR UPDATE
    `.execute(tx);
    const swapped = (batch: RawBuilder<unknown>) => sql`
      (SELECT jsonb_agg(CASE WHEN e = to_jsonb(${fromActionId}::integer) THEN to_jsonb(${toActionId}::integer) ELSE e END ORDER BY n)
       FROM jsonb_array_elements(${batch}) WITH ORDINALITY AS t(e, n))`;
    const result = await sql<CardRow>`
      WITH old AS (
        UPDATE slack_cards SET settled = true, drawn = ${fromKey}, drawn_at = now(), repair_claimed_at = NULL,
          batch = CASE WHEN batch IS NULL THEN NULL ELSE ${swapped(sql.raw('batch'))} END
        WHERE action_id = ${fromActionId}
        RETURNING channel, ts, thread_ts, kind, copies, batch
      ), members AS (
        UPDATE slack_cards c SET batch = ${swapped(sql.raw('c.batch'))}
        WHERE c.batch IS NOT NULL AND c.action_id NOT IN (${fromActionId}, ${toActionId})
          AND c.action_id IN (${requestsOfBatch(sql`(SELECT batch FROM old)`)})
        RETURNING c.action_id
      )
      INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind, drawn, copies, batch)
      SELECT ${toActionId}, channel, ts, thread_ts, kind, NULL, copies, batch FROM old
      ON CONFLICT (action_id) DO NOTHING
      RETURNING action_id, channel, ts, thread_ts, kind, drawn, copies, batch
    `.execute(tx);
    return result.rows[0];
  }));
}

/**
 * Every request of the calls a batch lists: its members and the requests earlier edits replaced
 * (their settled rows keep the batch too, so a redraw through one of them draws the batch as it is).
 */
function requestsOfBatch(batch: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    SELECT p.id FROM pending_actions q
    JOIN pending_actions p ON p.run_id = q.run_id AND p.tool_call_id = q.tool_call_id
    WHERE q.id IN (SELECT (jsonb_array_elements_text(${batch}))::integer)`;
}
