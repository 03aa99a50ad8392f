import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS } from '../kit/action-ids.js';
import type { BlockActionsBody } from '../kit/submitted-payloads.js';
import { revokeRemembered, type RememberedDeps } from './revoke-remembered.js';
import { personOf, type SlackContext } from '../context.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';

/**
 * Revoke in the Home tab's remembered approvals, or in their list's modal: acked first, then
 * revoked (see revokeRemembered); a modal it was clicked in is drawn again, as the list is now.
 */
export function registerRememberedActions(routes: InteractionRoutes, ctx: SlackContext, deps: RememberedDeps): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.revokeRemembered, async ({ ack, body, action }) => {
    await ack();
    const user = body.user?.id;
    if (!user) return void ctx.logger.warn('revoke click without a user');
    const parsed = body as unknown as BlockActionsBody;
    ctx.tasks.run(
      'revoke remembered',
      async () => {
        await revokeRemembered(ctx, deps, personOf(body), action.value);
        if (parsed.view?.type === 'modal') await deps.redrawList(ctx, parsed, parsed.view.private_metadata);
      },
      async (ref) => {
        await ctx.home?.notice(user, `Revoking failed (reference ${ref}); nothing may have changed. Try again in a moment.`);
      },
    );
  });
}
