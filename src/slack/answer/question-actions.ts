import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, cardBlockId } from '../kit/action-ids.js';
import { parseButtonValue } from '../kit/button-value.js';
import { recordChoice, showChoice } from './answer-choice.js';
import { tellClicker } from '../card/clicked-card.js';
import type { SlackContext } from '../context.js';
import { clickOf } from '../kit/click-of.js';
import type { GoOnInThread } from './resume-from-slack.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';

/**
 * askUser answers. A single choice (radio buttons, a menu) answers at once;
 * ticking checkboxes or a multi-select only changes the selection, and the
 * Submit button sends what is selected. An answer is recorded before the
 * click is acknowledged (see recordThenAck).
 */
export function registerQuestionActions(routes: InteractionRoutes, ctx: SlackContext, goOn: GoOnInThread): void {
  routes.action<BlockAction>(ACTION_IDS.questionAnswer, async ({ ack, body, action }) => {
    if (action.type !== 'radio_buttons' && action.type !== 'static_select') return void (await ack());
    const selected = action.selected_option?.value;
    await recordThenAck(ctx, ack, {
      name: 'question-answer',
      record: (startAfter) => recordChoice(ctx, clickOf(body), action, selected === undefined ? [] : [selected], false, startAfter),
      show: (recorded) => showChoice(ctx, recorded, goOn),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.questionSubmit, async ({ ack, body, action }) => {
    const value = parseButtonValue(action.value);
    const state = value ? body.state?.values[cardBlockId('question', value.actionId)]?.[ACTION_IDS.questionAnswer] : undefined;
    const selected = (state?.selected_options ?? []).map((o) => o.value);
    await recordThenAck(ctx, ack, {
      name: 'question-submit',
      record: (startAfter) => recordChoice(ctx, clickOf(body), action, selected, true, startAfter, value?.actionId),
      show: (recorded) => showChoice(ctx, recorded, goOn),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
}
