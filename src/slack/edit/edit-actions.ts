import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, CALLBACK_IDS } from '../kit/action-ids.js';
import { tellClicker } from '../card/button-check.js';
import { checkEditSubmission, showEditForm, recordEditSubmission, showEditSubmission, tellEditFailure, type EditDeps } from './edit-flow.js';
import { personOf, type SlackContext, clickOf } from '../context.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';

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
    const submission = await checkEditSubmission(ctx, view, user);
    if (submission.kind === 'errors') return void (await ack({ response_action: 'errors', errors: submission.errors }));
    if (submission.kind === 'close') return void (await ack());
    await recordThenAck(ctx, () => ack(), {
      name: 'edit-submit',
      record: (startAfter) => recordEditSubmission(ctx, submission, personOf(body), startAfter),
      show: (recorded) => showEditSubmission(ctx, deps, personOf(body), recorded),
      onError: tellEditFailure(ctx, submission.row.id, user),
    });
  });
}
