import type { App, BlockAction } from '@slack/bolt';
import { ACTION_IDS, CALLBACK_IDS } from '../blocks/action-ids.js';
import type { SlackContext } from '../slack-context.js';
import { tellUser } from '../tell-user.js';
import { clickOf } from './click.js';

const knownActions = new Set<string>(Object.values(ACTION_IDS));
const knownViews = new Set<string>(Object.values(CALLBACK_IDS));

/**
 * Interactions no listener owns (an old card's buttons, a forged payload) are
 * acknowledged at once, so Slack shows no error and the request does not hang,
 * and the clicker is told nothing happened.
 */
export function registerUnknownInteractions(app: App, ctx: SlackContext): void {
  app.action(/.*/, async ({ ack, body, action }) => {
    const actionId = (action as { action_id?: string }).action_id;
    if (actionId !== undefined && knownActions.has(actionId)) return;
    await ack();
    ctx.logger.warn({ actionId, type: body.type }, 'unknown interaction ignored');
    if (body.type !== 'block_actions') return;
    const click = clickOf(body as BlockAction);
    if (click) ctx.tasks.run('unknown-action', () => tellUser(ctx, click, 'That button is not one I know (it may be from an old version of me). Nothing was changed.'));
  });
  app.view(/.*/, async ({ ack, view }) => {
    if (knownViews.has(view.callback_id)) return;
    await ack();
    ctx.logger.warn({ callbackId: view.callback_id }, 'unknown view submission ignored');
  });
}
