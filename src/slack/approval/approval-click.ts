import type { ButtonAction } from '@slack/bolt';
import type { Decision } from '../../agent/api-types.js';
import { declineModal } from './decline-modal.js';
import { actorOf, type Click, type SlackContext } from '../context.js';
import type { CardRow } from '../card/cards.js';
import { tamperedButton } from '../card/clicked-card.js';
import { genuineButton, type GenuineButton } from '../card/genuine-button.js';
import { openReasonModal } from './approve-with-reason.js';
import { markDecisionInFlight } from '../card/lifecycle.js';
import { handleDecision } from './handle-decision.js';
import { decisionRefusal } from './decision-refusal.js';
import { tellUser } from '../kit/tell-user.js';

export type RecordedApproval =
  | { kind: 'no-click' }
  | { kind: 'tampered'; click: Click }
  | { kind: 'decided'; click: Click; button: GenuineButton; decision: Decision; done: () => void };

/**
 * An Approve click, up to its recorded decision: the button must be the very
 * card's, and the decision is bound to its fingerprint; the run's work waits
 * for `startAfter`. Nothing is posted here (showApproval does it).
 */
export async function recordApproval(
  ctx: SlackContext,
  click: Click | undefined,
  action: ButtonAction,
  startAfter: Promise<void>,
  options: { remember?: boolean } = {},
): Promise<RecordedApproval> {
  if (!click) {
    ctx.logger.warn('approve click without user or channel');
    return { kind: 'no-click' };
  }
  const button = await genuineButton(ctx, click, action);
  if (!button) return { kind: 'tampered', click };
  const done = markDecisionInFlight(ctx, button.value.actionId);
  try {
    const decision = await decideFromButton(ctx, button, click, 'approve', startAfter, options.remember === true);
    ctx.logger.info({ actionId: button.value.actionId, user: click.user, outcome: decision.outcome }, 'approve clicked');
    return { kind: 'decided', click, button, decision, done };
  } catch (error) {
    done();
    throw error;
  }
}

/** Shows a recorded approval: the card redrawn (or the clicker told why not), then the run's continuation. */
export async function showApproval(ctx: SlackContext, recorded: RecordedApproval): Promise<void> {
  if (recorded.kind === 'no-click') return;
  if (recorded.kind === 'tampered') return tellUser(ctx, recorded.click, tamperedButton);
  const { decision, click } = recorded;
  // The policy wants a reason (it may have started to after the card was drawn, or the click came
  // from the inbox): the refusal is on record, and the clicker gets the form instead of an error.
  if (decision.outcome === 'not-allowed' && decision.why === 'reason-required' && click.triggerId) {
    recorded.done();
    return openReasonModal(ctx, click, decision.action);
  }
  try {
    await handleDecision(ctx, recorded.decision, recorded.click, recorded.button.card);
  } finally {
    recorded.done();
  }
}

/** The decision a genuine button asks for, by the signed-in clicker, bound to the card's fingerprint. */
function decideFromButton(ctx: SlackContext, button: GenuineButton, click: Click, decision: 'approve' | 'decline', startAfter?: Promise<void>, remember = false) {
  return ctx.agent.decideToolCall(
    {
      actionId: button.value.actionId,
      fingerprint: button.value.fingerprintPrefix,
      actor: actorOf(click),
      decision,
      ...(remember ? { remember: true } : {}),
    },
    { ...(button.row ? { action: button.row } : {}), ...(startAfter ? { startAfter } : {}) },
  );
}

/**
 * Checks what can be checked before the modal opens, so nobody writes a reason
 * for a request they cannot decline; the decision itself is checked again on submit.
 * When the modal cannot open (the trigger expired, Slack is down) the decline
 * still happens, without a reason.
 */
export async function openDecline(ctx: SlackContext, click: Click | undefined, action: ButtonAction): Promise<void> {
  if (!click) return void ctx.logger.warn('decline click without user or channel');
  const button = await genuineButton(ctx, click, action);
  if (!button) return tellUser(ctx, click, tamperedButton);
  const row = button.row;
  const refusal = await decisionRefusal(ctx, click, button, { as: 'decline', groupLookupMayRetry: true });
  if (refusal) {
    ctx.logger.info({ actionId: button.value.actionId, user: click.user }, 'decline refused before the modal');
    return tellUser(ctx, click, refusal);
  }
  try {
    if (!click.triggerId) throw new Error('no trigger_id');
    await ctx.client.views.open({
      trigger_id: click.triggerId,
      view: declineModal({ actionId: row!.id, fingerprint: row!.fingerprint ?? '', toolName: row!.tool_name }),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: button.value.actionId }, 'decline modal could not open; declining without a reason');
    const done = markDecisionInFlight(ctx, button.value.actionId);
    try {
      await handleDecision(ctx, await decideFromButton(ctx, button, click, 'decline'), click, button.card);
    } finally {
      done();
    }
  }
}
