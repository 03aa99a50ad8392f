import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, CALLBACK_IDS } from '../kit/action-ids.js';
import { tellClicker } from '../card/clicked-card.js';
import { checkRespondSubmission, showRespondForm, recordRespondAnswer, tellRespondFailure } from './respond-form.js';
import { showAnswer, type GoOnInThread } from './resume-from-slack.js';
import { recordConfirmation } from './confirmation.js';
import { showChoice } from './answer-choice.js';
import { personOf, type SlackContext } from '../context.js';
import { clickOf } from '../kit/click-of.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';

/**
 * Respond opens a modal built from the tool's resume schema; its submission is
 * checked before the modal closes (errors beside their fields) and recorded
 * before the ack. Yes / No buttons answer a yes/no schema without a form.
 */
export function registerRespondActions(routes: InteractionRoutes, ctx: SlackContext, goOn: GoOnInThread): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.suspensionRespond, async ({ ack, body, action }) => {
    await ack();
    const click = clickOf(body);
    if (click) ctx.tasks.run('respond-open', () => showRespondForm(ctx, click, action), tellClicker(ctx, click));
  });

  // Yes / No answer a one-boolean resume schema at once: recorded before the ack, like every answer.
  for (const [actionId, yes] of [[ACTION_IDS.suspensionYes, true], [ACTION_IDS.suspensionNo, false]] as const) {
    routes.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action }) => {
      await recordThenAck(ctx, ack, {
        name: yes ? 'suspension-yes' : 'suspension-no',
        record: (startAfter) => recordConfirmation(ctx, clickOf(body), action, yes, startAfter),
        show: (recorded) => showChoice(ctx, recorded, goOn),
        onError: tellClicker(ctx, clickOf(body)),
      });
    });
  }

  routes.view(CALLBACK_IDS.respondModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    const submission = await checkRespondSubmission(ctx, view, user);
    if (submission.kind === 'errors') return void (await ack({ response_action: 'errors', errors: submission.errors }));
    if (submission.kind === 'close') return void (await ack());
    await recordThenAck(ctx, () => ack(), {
      name: 'respond-submit',
      record: (startAfter) => recordRespondAnswer(ctx, submission, personOf(body), startAfter),
      show: async (recorded) => recorded && showAnswer(ctx, recorded, goOn),
      onError: tellRespondFailure(ctx, submission.row.id, user),
    });
  });
}
