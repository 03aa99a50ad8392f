import type { ButtonAction } from '@slack/bolt';
import { editModal } from './edit-modal.js';
import type { Click, SlackContext } from '../context.js';
import { genuineButton } from '../card/genuine-button.js';
import { tamperedButton } from '../card/clicked-card.js';
import { editFormOf } from './edit-form.js';
import { decisionRefusal } from '../approval/decision-refusal.js';
import { tellUser } from '../kit/tell-user.js';

/**
 * Edit: the clicker must be someone who may approve the request as it stands (asked of the
 * Agent, as Approve is); then a modal of the tool's input schema opens, prefilled with the
 * request's arguments as stored (read here by the button's request id, never from the click).
 */
export async function openEdit(ctx: SlackContext, click: Click | undefined, action: ButtonAction): Promise<void> {
  if (!click) return void ctx.logger.warn('edit click without user or channel');
  const button = await genuineButton(ctx, click, action);
  if (!button) return tellUser(ctx, click, tamperedButton);
  const refusal = await decisionRefusal(ctx, click, button, { as: 'edit' });
  const row = button.row;
  if (refusal || !row) {
    ctx.logger.info({ actionId: button.value.actionId, user: click.user }, 'edit refused before the modal');
    return tellUser(ctx, click, refusal ?? 'I could not find that request; its run may have ended. Nothing was changed.');
  }
  const form = editFormOf(ctx.agent, row);
  if (!form) return tellUser(ctx, click, 'The arguments of this request cannot be edited here. Nothing was changed.');
  if (!click.triggerId) return tellUser(ctx, click, 'Slack did not let me open the form; try again. Nothing was changed.');
  try {
    await ctx.client.views.open({
      trigger_id: click.triggerId,
      view: editModal({ actionId: row.id, fingerprint: row.fingerprint ?? '', toolName: row.tool_name, form, current: row.args }),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: row.id }, 'edit modal could not open');
    await tellUser(ctx, click, 'The edit form could not open; try again. Nothing was changed.');
  }
}
