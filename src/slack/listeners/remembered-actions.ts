import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS } from '../blocks/action-ids.js';
import { revokeRemembered } from '../flows/revoke-remembered.js';
import { personOf, type SlackContext } from '../slack-context.js';
import type { InteractionRoutes } from './interaction-routes.js';

/** Revoke in the Home tab's remembered approvals: acked first, then revoked (see revokeRemembered). */
export function registerRememberedActions(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.revokeRemembered, async ({ ack, body, action }) => {
    await ack();
    const user = body.user?.id;
    if (!user) return void ctx.logger.warn('revoke click without a user');
    ctx.tasks.run('revoke remembered', () => revokeRemembered(ctx, personOf(body), action.value), async (ref) => {
      await ctx.home?.notice(user, `Revoking failed (reference ${ref}); nothing may have changed. Try again in a moment.`);
    });
  });
}
