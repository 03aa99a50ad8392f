import type { ButtonAction } from '@slack/bolt';
import { parseCardBlockId } from '../kit/action-ids.js';
import { argumentsModal } from './approval-modals.js';
import { parseButtonValue } from '../kit/button-value.js';
import { actorOf, findRequest, type Click, type SlackContext } from '../context.js';
import { clickedCard, tamperedButton } from '../card/button-check.js';
import { tellUser } from '../kit/tell-user.js';
import { onItsCard } from '../card/unseen-request.js';
import type { Request } from '../../agent/request.js';
import type { CardPreview } from '../card/card-types.js';

/**
 * "Show arguments": a read-only modal with the request's exact arguments (and the tool's preview in full), read from the request
 * itself (the button only names which one, and must sit on that request's card). Anyone in the
 * workspace who sees the card may look; a click from another workspace (a shared channel) may not,
 * nor, for a request without a card, anyone who may not see the request (Agent.maySee).
 */
export async function showArguments(ctx: SlackContext, click: Click | undefined, action: ButtonAction): Promise<void> {
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
