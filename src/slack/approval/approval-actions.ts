import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, CALLBACK_IDS, parseCardBlockId, parseButtonValue } from '../kit/action-ids.js';
import { openDecline, recordApproval, showApproval, openApproveReason, approveReasonErrors, recordApproveReason, tellApproveReasonFailure, recordDeclineSubmission, showDecisionSubmission, tellDeclineFailure } from './approval-flow.js';
import { tellClicker, clickedCard, tamperedButton, onItsCard } from '../card/button-check.js';
import { type SlackContext, personOf, clickOf, actorOf, findRequest, type Click, tellUser } from '../context.js';
import type { InteractionRoutes } from '../kit/action-ids.js';
import { recordThenAck } from '../ack.js';
import { argumentsModal } from './approval-modals.js';
import type { Request } from '../../agent/request.js';
import type { CardPreview } from '../card/card-types.js';

/**
 * Approve decides at once, recorded before the click is acknowledged (see
 * recordThenAck); Decline first asks for an optional reason in a modal, and so does Approve
 * (a required one) where the policy says requireReason. Show arguments opens a read-only modal.
 */
export function registerApprovalActions(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.approve, async ({ ack, body, action }) => {
    await recordThenAck(ctx, ack, {
      name: 'approve',
      record: (startAfter) => recordApproval(ctx, clickOf(body), action, startAfter),
      show: (recorded) => showApproval(ctx, recorded),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
  // "Approve and allow for …": the same approve, which also asks to remember the approval.
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.approveRemember, async ({ ack, body, action }) => {
    await recordThenAck(ctx, ack, {
      name: 'approve and remember',
      record: (startAfter) => recordApproval(ctx, clickOf(body), action, startAfter, { remember: true }),
      show: (recorded) => showApproval(ctx, recorded),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.decline, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('decline', () => openDecline(ctx, clickOf(body), action), tellClicker(ctx, clickOf(body)));
  });
  // Where the policy wants a reason, Approve opens a form for it; the approval comes with its submission.
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.approveWithReason, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('approve-with-reason', () => openApproveReason(ctx, clickOf(body), action), tellClicker(ctx, clickOf(body)));
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.showArguments, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('show-arguments', () => showArguments(ctx, clickOf(body), action), tellClicker(ctx, clickOf(body)));
  });
}

/** The approve-reason modal's submission: a blank reason goes back to the form; else recorded, then acked, then shown. */
export function registerApproveReasonSubmit(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.view(CALLBACK_IDS.approveReasonModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    const errors = approveReasonErrors(view);
    if (errors) return void (await ack({ response_action: 'errors', errors }));
    await recordThenAck(ctx, () => ack(), {
      name: 'approve-reason-submit',
      record: (startAfter) => recordApproveReason(ctx, view, personOf(body), startAfter),
      show: (recorded) => showDecisionSubmission(ctx, personOf(body), recorded),
      onError: tellApproveReasonFailure(ctx, view, user),
    });
  });
}

/** The decline modal's submission: recorded, then the modal closes (ack), then the outcome is shown. */
export function registerDeclineModalSubmit(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.view(CALLBACK_IDS.declineModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    await recordThenAck(ctx, () => ack(), {
      name: 'decline-submit',
      record: (startAfter) => recordDeclineSubmission(ctx, view, personOf(body), startAfter),
      show: (recorded) => showDecisionSubmission(ctx, personOf(body), recorded),
      onError: tellDeclineFailure(ctx, view, user),
    });
  });
}

/**
 * "Show arguments": a read-only modal with the request's exact arguments (and the tool's preview in full), read from the request
 * itself (the button only names which one, and must sit on that request's card). Anyone in the
 * workspace who sees the card may look; a click from another workspace (a shared channel) may not,
 * nor, for a request without a card, anyone who may not see the request (Agent.maySee).
 */
async function showArguments(ctx: SlackContext, click: Click | undefined, action: ButtonAction): Promise<void> {
  if (!click) return void ctx.logger.warn('show-arguments click without user or channel');
  const value = parseButtonValue(action.value);
  const block = parseCardBlockId(action.block_id);
  const checked = value && block?.kind === 'approval' && block.actionId === value.actionId ? await clickedCard(ctx, click, value.actionId) : false;
  if (!value || !checked) {
    ctx.logger.warn({ user: click.user, value: action.value, blockId: action.block_id }, 'show-arguments refused: button does not match a card');
    return tellUser(ctx, click, tamperedButton);
  }
  if (ctx.agent.isOutsider(actorOf(click))) {
    ctx.logger.warn({ user: click.user, clickerTeam: click.teamId, actionId: value.actionId }, 'show-arguments refused: clicker is not in this workspace');
    return tellUser(ctx, click, 'Only members of this workspace can see the arguments of a request.');
  }
  const row = checked.state?.action ?? (await findRequest(ctx, value.actionId));
  // Off a card (a button naming a request that has none), the arguments are only for someone who may see the request.
  const seen = row?.kind === 'approval' && (onItsCard(click, checked.state?.card) || (await ctx.agent.maySee(row, { userId: click.user })));
  if (!row || !seen) {
    ctx.logger.info({ user: click.user, actionId: value.actionId, exists: row !== undefined }, 'show-arguments: nothing this person may see');
    return tellUser(ctx, click, 'I could not find that request, or it is not one you may see. Nothing to show.');
  }
  if (!click.triggerId) return tellUser(ctx, click, 'Slack did not let me open a window for that click; please try again.');
  try {
    await ctx.client.views.open({
      trigger_id: click.triggerId,
      view: argumentsModal({ actionId: row.id, toolName: row.toolName, args: row.args, ...previewOf(ctx, row) }),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: row.id }, 'arguments modal could not open');
    await tellUser(ctx, click, 'I could not open the arguments just now (the click may have expired); please try again.');
  }
}

function previewOf(ctx: SlackContext, row: Request): { preview?: CardPreview } {
  const preview = ctx.agent.bindingOf(row).preview;
  return preview ? { preview } : {};
}
