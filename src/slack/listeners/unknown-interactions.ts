import type { BlockAction, Middleware, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { SlackContext } from '../slack-context.js';
import { tellUser } from '../flows/tell-user.js';
import { clickOf } from './click-of.js';

/**
 * Interactions no listener owns (an old card's buttons, a forged payload) are
 * acknowledged at once, so Slack shows no error and the request does not hang,
 * and the clicker is told nothing happened.
 */
export function unknownInteractions(ctx: SlackContext): {
  action: Middleware<SlackActionMiddlewareArgs>;
  view: Middleware<SlackViewMiddlewareArgs>;
} {
  return {
    async action({ ack, body, action }) {
      await ack();
      ctx.logger.warn({ actionId: (action as { action_id?: string }).action_id, type: body.type }, 'unknown interaction ignored');
      if (body.type !== 'block_actions') return;
      const click = clickOf(body as BlockAction);
      if (click) ctx.tasks.run('unknown-action', () => tellUser(ctx, click, 'That button is not one I know (it may be from an old version of me). Nothing was changed.'));
    },
    async view({ ack, view }) {
      await ack();
      ctx.logger.warn({ callbackId: view.callback_id }, 'unknown view submission ignored');
    },
  };
}
